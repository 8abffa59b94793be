/** Worker thread for the USE-lite provider: embeds the texts it is sent and posts back vectors and progress. */
import { parentPort } from "node:worker_threads";
import { embedHere } from "./use-lite-model.js";

interface Job {
  id: number;
  texts: string[];
}

parentPort!.on("message", async (job: Job) => {
  try {
    const vectors = await embedHere(job.texts, (done) => parentPort!.postMessage({ id: job.id, progress: done }));
    const buffers = vectors.map((v) => v.buffer as ArrayBuffer);
    parentPort!.postMessage({ id: job.id, vectors }, buffers);
  } catch (error) {
    parentPort!.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) });
  }
});
