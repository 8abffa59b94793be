/** Shared by the embedding tests: one USE-lite model per test process, and a provider that counts its calls. */
import { join } from "node:path";
import type { EmbeddingProvider } from "../../src/embeddings/provider.js";
import { UseLiteProvider } from "../../src/embeddings/use-lite.js";
import { makeTempDir } from "../helpers/temp-dir.js";

/** USE lite in this thread: the tests' catalogs are small, and one model load is shared by every test in a file. */
export const useLite = new UseLiteProvider({ threads: 0 });

/** Wraps a provider and records every text it is asked to embed. */
export class CountingProvider implements EmbeddingProvider {
  readonly seen: string[] = [];
  calls = 0;
  constructor(private readonly inner: EmbeddingProvider = useLite) {}
  get id(): string {
    return this.inner.id;
  }
  get dimensions(): number {
    return this.inner.dimensions;
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls++;
    this.seen.push(...texts);
    return this.inner.embed(texts);
  }
}

/** A fresh temporary folder. */
export function tempDir(): string {
  return makeTempDir("toolsearch-emb-");
}

export const FIXTURE_TOOLS = new URL("../fixtures/embeddings-tools.json", import.meta.url).pathname;
