/**
 * A provider behind the persistent cache: texts already embedded by the same provider come from SQLite, the rest are
 * embedded (with progress), stored, and every vector is returned at unit length. Queries also go through a small
 * in-memory cache, so a repeated query costs no model call.
 */
import { ToolsearchError } from "../errors.js";
import { EmbeddingCache, hashText } from "./cache.js";
import { type EmbeddingProvider, type EmbedProgress, normalize } from "./provider.js";

/**
 * Where an `Embedder` keeps vectors between runs: the local `EmbeddingCache` file, or the vector table of a service
 * store (`Store` of src/store/types.ts), so that every process on one store embeds a text once. Either side may be
 * synchronous or asynchronous.
 */
export interface VectorCache {
  getMany(provider: string, hashes: string[], dimensions: number): Map<string, Float32Array> | Promise<Map<string, Float32Array>>;
  putMany(provider: string, entries: Array<[hash: string, vector: Float32Array]>): void | Promise<void>;
}

/** Options of an `Embedder`. */
export interface EmbedderOptions {
  /**
   * The persistent cache; `false` keeps nothing on disk (default: a cache at `.toolsearch/embeddings.sqlite`).
   * A service passes its store here. `close()` closes only an `EmbeddingCache`; a store belongs to its owner.
   */
  cache?: VectorCache | false;
  /** Queries remembered in memory (default 1000). */
  queryCacheSize?: number;
  /** Also keep query vectors in the persistent cache (default false; `eval` turns it on, since it repeats queries). */
  persistQueries?: boolean;
}

export class Embedder {
  readonly provider: EmbeddingProvider;
  readonly cache: VectorCache | undefined;
  private readonly queryCache = new Map<string, Float32Array>();
  private readonly queryCacheSize: number;
  private readonly persistQueries: boolean;
  /** Texts sent to the provider so far (cache misses); for tests and reports. */
  providerCalls = 0;
  providerTexts = 0;

  constructor(provider: EmbeddingProvider, options: EmbedderOptions = {}) {
    this.provider = provider;
    this.cache = options.cache === false ? undefined : (options.cache ?? new EmbeddingCache());
    this.queryCacheSize = options.queryCacheSize ?? 1000;
    this.persistQueries = options.persistQueries ?? false;
  }

  get id(): string {
    return this.provider.id;
  }

  get dimensions(): number {
    return this.provider.dimensions;
  }

  /** Unit vectors for `texts`, from the cache where possible; `onProgress` counts only texts actually embedded. */
  async embedMany(texts: string[], onProgress?: EmbedProgress): Promise<Float32Array[]> {
    const hashes = texts.map(hashText);
    const found = (await this.cache?.getMany(this.id, hashes, this.dimensions)) ?? new Map<string, Float32Array>();
    const missing = new Map<string, string>();
    hashes.forEach((hash, i) => {
      if (!found.has(hash)) missing.set(hash, texts[i]);
    });
    if (missing.size > 0) {
      const fresh = await this.callProvider([...missing.values()], onProgress);
      const entries = [...missing.keys()].map((hash, i) => [hash, fresh[i]] as [string, Float32Array]);
      await this.cache?.putMany(this.id, entries);
      for (const [hash, vector] of entries) found.set(hash, vector);
    }
    return hashes.map((hash) => found.get(hash)!);
  }

  /** The unit vector of a query; repeated queries are answered from memory. */
  async embedQuery(query: string): Promise<Float32Array> {
    const [vector] = await this.embedQueries([query]);
    return vector;
  }

  /**
   * Unit vectors of several query texts (the sentences of one request), in order. Texts seen recently come from
   * memory; the rest go to the provider in one call, since a batch costs less than its texts one by one.
   */
  async embedQueries(queries: string[]): Promise<Float32Array[]> {
    const found = new Map<string, Float32Array>();
    for (const q of queries) {
      const known = this.queryCache.get(q);
      if (known) found.set(q, known);
    }
    const missing = [...new Set(queries.filter((q) => !found.has(q)))];
    if (missing.length > 0) {
      const vectors = this.persistQueries ? await this.embedMany(missing) : await this.callProvider(missing);
      missing.forEach((query, i) => {
        found.set(query, vectors[i]);
        this.remember(query, vectors[i]);
      });
    }
    return queries.map((q) => found.get(q)!);
  }

  private remember(query: string, vector: Float32Array): void {
    if (this.queryCacheSize < 1) return;
    if (this.queryCache.size >= this.queryCacheSize) this.queryCache.delete(this.queryCache.keys().next().value!);
    this.queryCache.set(query, vector);
  }

  async close(): Promise<void> {
    await this.provider.close?.();
    if (this.cache instanceof EmbeddingCache) this.cache.close();
  }

  private async callProvider(texts: string[], onProgress?: EmbedProgress): Promise<Float32Array[]> {
    this.providerCalls++;
    this.providerTexts += texts.length;
    const vectors = await this.provider.embed(texts, onProgress);
    if (vectors.length !== texts.length || vectors.some((v) => v.length !== this.dimensions)) {
      throw new ToolsearchError("embedding_failed", `${this.id}: expected ${texts.length} vectors of ${this.dimensions} dimensions, got ${vectors.length}${vectors[0] ? ` of ${vectors[0].length}` : ""}`);
    }
    return vectors.map((v) => normalize(Float32Array.from(v)));
  }
}
