/** An embedding provider for the service benchmarks, where only timing matters. */
import { createHash } from "node:crypto";
import type { EmbeddingProvider } from "../src/embeddings/provider.js";

/** Unit vectors derived from a hash of the text, with USE-lite's 512 dimensions; counts its calls. */
export class StandInProvider implements EmbeddingProvider {
  readonly id = "bench-serve-stand-in";
  readonly dimensions = 512;
  calls = 0;
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls++;
    return texts.map((text) => {
      const seed = createHash("sha256").update(text).digest();
      const v = new Float32Array(this.dimensions);
      for (let i = 0; i < v.length; i++) v[i] = seed[i % 32] / 255 - 0.5 + ((i * 7919) % 13) / 100;
      return v;
    });
  }
}
