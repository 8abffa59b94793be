/**
 * The default, offline provider: Universal Sentence Encoder lite (512 dimensions), weights inside the npm package.
 * Queries and small batches run in this thread; bulk work (a catalog) is shared among worker threads, one per core.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { ToolsearchError } from "../errors.js";
import type { EmbeddingProvider, EmbedProgress } from "./provider.js";
import { embedHere } from "./use-lite-model.js";

/** Options of the USE-lite provider. */
export interface UseLiteOptions {
  /** Worker threads for bulk embedding (default: the number of cores, at most 4; 0 embeds in this thread only). */
  threads?: number;
  /** Fewer texts than this are embedded in this thread, since starting workers costs a model load each (default 64). */
  bulkThreshold?: number;
}

/** Texts handed to a worker at a time; small enough to balance two workers, large enough to batch well. */
const JOB_SIZE = 64;

interface Reply {
  id: number;
  progress?: number;
  vectors?: Float32Array[];
  error?: string;
}

/** The provider id of USE lite, the default embedder (part of every cache key and snapshot). */
export const USE_LITE_ID = "use-lite@0.2.0";

export class UseLiteProvider implements EmbeddingProvider {
  readonly id = USE_LITE_ID;
  readonly dimensions = 512;
  private readonly threads: number;
  private readonly bulkThreshold: number;
  private workers: Worker[] = [];

  constructor(options: UseLiteOptions = {}) {
    this.threads = options.threads ?? Math.min(4, availableParallelism());
    this.bulkThreshold = options.bulkThreshold ?? 64;
  }

  async embed(texts: string[], onProgress?: EmbedProgress): Promise<Float32Array[]> {
    try {
      if (this.threads < 1 || texts.length < this.bulkThreshold) {
        return await embedHere(texts, (done) => onProgress?.(done, texts.length));
      }
      return await this.embedInWorkers(texts, onProgress);
    } catch (error) {
      if (error instanceof ToolsearchError) throw error;
      throw new ToolsearchError("embedding_failed", `use-lite: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Loads the model in this thread and in every worker (each loads its own copy, ~1–3 s), so that the first bulk
   * embedding and the first query pay nothing for it. Optional: everything loads on first use anyway.
   */
  async warmUp(): Promise<void> {
    await embedHere([" "]);
    const workers = this.startWorkers(this.threads);
    await Promise.all(workers.map(async (worker, i) => {
      worker.ref();
      try {
        await this.runJob(worker, -1 - i, [" "], () => {});
      } finally {
        worker.unref();
      }
    }));
  }

  async close(): Promise<void> {
    const workers = this.workers;
    this.workers = [];
    await Promise.all(workers.map((w) => w.terminate()));
  }

  /** Hands jobs of `JOB_SIZE` texts to the workers as they free up; results keep the input order. */
  private async embedInWorkers(texts: string[], onProgress?: EmbedProgress): Promise<Float32Array[]> {
    const workers = this.startWorkers(Math.min(this.threads, Math.ceil(texts.length / JOB_SIZE)));
    const out: Float32Array[] = new Array(texts.length);
    const doneInJob = new Map<number, number>();
    let finished = 0;
    let next = 0;
    const report = () => onProgress?.(finished + [...doneInJob.values()].reduce((a, b) => a + b, 0), texts.length);
    const runWorker = async (worker: Worker) => {
      worker.ref();
      try {
        while (next < texts.length) {
          const start = next;
          next += JOB_SIZE;
          const vectors = await this.runJob(worker, start, texts.slice(start, start + JOB_SIZE), (done) => {
            doneInJob.set(start, done);
            report();
          });
          vectors.forEach((v, i) => (out[start + i] = v));
          doneInJob.delete(start);
          finished += vectors.length;
          report();
        }
      } finally {
        worker.unref();
      }
    };
    await Promise.all(workers.map(runWorker));
    return out;
  }

  private runJob(worker: Worker, id: number, texts: string[], onDone: (done: number) => void): Promise<Float32Array[]> {
    return new Promise((resolve, reject) => {
      const onMessage = (reply: Reply) => {
        if (reply.id !== id) return;
        if (reply.progress !== undefined) return onDone(reply.progress);
        cleanup();
        if (reply.error !== undefined) reject(new Error(reply.error));
        else resolve(reply.vectors!);
      };
      const onError = (error: Error) => {
        cleanup();
        reject(error);
      };
      const cleanup = () => {
        worker.off("message", onMessage);
        worker.off("error", onError);
      };
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.postMessage({ id, texts });
    });
  }

  private startWorkers(count: number): Worker[] {
    while (this.workers.length < count) {
      const worker = newWorker();
      worker.unref();
      this.workers.push(worker);
    }
    return this.workers.slice(0, count);
  }
}

/**
 * Built, the worker is plain JavaScript. Under tsx (tests, `npm run toolsearch`) this module is TypeScript and Node
 * 20 does not carry tsx's loader into workers, so the worker registers it first.
 */
function newWorker(): Worker {
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./use-lite-worker.js", import.meta.url));
  const file = new URL("./use-lite-worker.ts", import.meta.url).href;
  const code = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(file)}); });`;
  return new Worker(code, { eval: true });
}
