/**
 * The one interface every embedding provider implements: texts in, unit-length vectors out. `id` names the provider
 * and its model (e.g. `use-lite`, `http:text-embedding-3-small`), so that vectors from different models never mix in
 * the cache.
 */
export interface EmbeddingProvider {
  /** Provider and model, stable across runs; part of every cache key. */
  readonly id: string;
  /** Length of every vector. */
  readonly dimensions: number;
  /** One vector per text, in order. Vectors may be unnormalized; `normalize` is applied by the callers that need it. */
  embed(texts: string[], onProgress?: EmbedProgress): Promise<Float32Array[]>;
  /** Releases threads, sockets or sessions. Safe to call more than once. */
  close?(): Promise<void>;
}

/** Called as texts are embedded, with how many of `total` are done. */
export type EmbedProgress = (done: number, total: number) => void;

/** Scales a vector to unit length in place (a zero vector stays zero) and returns it. */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] *= scale;
  return vector;
}

/** Splits `items` into chunks of at most `size`. */
export function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
