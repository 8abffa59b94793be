/** A deterministic embedding provider for tests that need vectors but not a model. */
import type { EmbeddingProvider } from "../../src/embeddings/provider.js";

/** Letter counts as a 26-dimension vector; records what it was asked to embed. */
export class LetterProvider implements EmbeddingProvider {
  readonly id = "test-letters";
  readonly dimensions = 26;
  readonly seen: string[] = [];
  get texts(): number {
    return this.seen.length;
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.seen.push(...texts);
    return texts.map((text) => {
      const v = new Float32Array(26).fill(0.01);
      for (const ch of text.toLowerCase()) if (ch >= "a" && ch <= "z") v[ch.charCodeAt(0) - 97] += 1;
      return v;
    });
  }
}
