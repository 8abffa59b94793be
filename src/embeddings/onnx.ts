/**
 * A local ONNX sentence encoder (a sentence-transformers export such as `all-MiniLM-L6-v2` or `bge-small-en-v1.5`:
 * `config.json`, `tokenizer.json`, `tokenizer_config.json` and `onnx/model.onnx` or `model.onnx`) run by
 * `@huggingface/transformers` on onnxruntime. That package is an optional peer dependency (installed only by those who
 * use this provider: it brings onnxruntime, some 450 MB); remote models are disabled, so
 * nothing is ever downloaded. Vectors are mean-pooled over tokens (`cls` for BGE-style models) and normalized.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ToolsearchError } from "../errors.js";
import { chunk, type EmbeddingProvider, type EmbedProgress } from "./provider.js";

/** Options of the ONNX provider. */
export interface OnnxEmbeddingOptions {
  /** How token vectors become one vector (default `mean`; BGE models use `cls`). */
  pooling?: "mean" | "cls";
  /** Texts per model call (default 32). */
  batchSize?: number;
}

type Extractor = (texts: string[], options: { pooling: "mean" | "cls"; normalize: boolean }) => Promise<{ data: Float32Array; dims: number[] }>;

export class OnnxEmbeddingProvider implements EmbeddingProvider {
  readonly id: string;
  readonly dimensions: number;

  private constructor(id: string, dimensions: number, private readonly extract: Extractor, private readonly options: Required<OnnxEmbeddingOptions>) {
    this.id = id;
    this.dimensions = dimensions;
  }

  /** Loads the model folder; its vector length is read off one probe embedding. */
  static async load(folder: string, options: OnnxEmbeddingOptions = {}): Promise<OnnxEmbeddingProvider> {
    const dir = resolve(folder);
    const modelFile = [join(dir, "onnx", "model.onnx"), join(dir, "model.onnx")].find((f) => existsSync(f));
    if (!modelFile || !existsSync(join(dir, "tokenizer.json"))) {
      throw new ToolsearchError("embedding_failed", `${folder}: not an ONNX model folder (expected tokenizer.json and onnx/model.onnx or model.onnx).`);
    }
    const transformers = await importTransformers();
    const { env, pipeline } = transformers;
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = `${dirname(dir)}/`;
    const o: Required<OnnxEmbeddingOptions> = { pooling: options.pooling ?? "mean", batchSize: options.batchSize ?? 32 };
    let extract: Extractor;
    try {
      extract = (await pipeline("feature-extraction", basename(dir), {
        local_files_only: true,
        dtype: "fp32",
        subfolder: modelFile.endsWith(join("onnx", "model.onnx")) ? "onnx" : "",
      })) as unknown as Extractor;
    } catch (error) {
      throw new ToolsearchError("embedding_failed", `${folder}: the ONNX model could not be loaded (${error instanceof Error ? error.message : String(error)}).`);
    }
    const probe = await extract(["dimension probe"], { pooling: o.pooling, normalize: true });
    const dimensions = probe.dims[probe.dims.length - 1];
    return new OnnxEmbeddingProvider(`onnx:${basename(dir)}:${fingerprint(dir, modelFile)}:${o.pooling}`, dimensions, extract, o);
  }

  async embed(texts: string[], onProgress?: EmbedProgress): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const batch of chunk(texts, this.options.batchSize)) {
      const result = await this.extract(batch, { pooling: this.options.pooling, normalize: true });
      const width = result.dims[result.dims.length - 1];
      for (let i = 0; i < batch.length; i++) out.push(Float32Array.from(result.data.subarray(i * width, (i + 1) * width)));
      onProgress?.(out.length, texts.length);
    }
    return out;
  }
}

async function importTransformers(): Promise<typeof import("@huggingface/transformers")> {
  try {
    return await import("@huggingface/transformers");
  } catch (error) {
    throw new ToolsearchError(
      "embedding_failed",
      `The onnx embedder needs @huggingface/transformers, an optional peer dependency of toolsearch that is not installed (${error instanceof Error ? error.message.split("\n")[0] : String(error)}). Install it next to toolsearch: npm install @huggingface/transformers@^4`,
    );
  }
}

/** Identifies the model files, so that vectors of a replaced model never come from the cache. */
function fingerprint(dir: string, modelFile: string): string {
  const hash = createHash("sha256");
  for (const file of [modelFile, join(dir, "tokenizer.json"), join(dir, "config.json")]) {
    if (!existsSync(file)) continue;
    const stat = statSync(file);
    hash.update(`${file}:${stat.size}:`);
    if (stat.size < 5_000_000) hash.update(readFileSync(file));
  }
  return hash.digest("hex").slice(0, 12);
}
