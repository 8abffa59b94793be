/**
 * Pseudo-relevance feedback in embedding space (Rocchio): each query sentence is moved toward the mean vector of the
 * top few tools of the request's first-stage ranking, and the candidates are scored again against the moved query
 * (the learned ranker's `prf_cosine`). No labels and no new embedding: only the vectors of the tools already found.
 *
 * Why: a short clause ("the latest news") embeds weakly, and its cosine favours whichever tool shares its surface
 * words. The tools ranked first (by words and meaning together) say more about the topic than the clause alone; a
 * general tool of that topic sits close to their mean even when a narrow tool is closer to the clause's words.
 */
import type { VectorIndex } from "../engines/vector.js";
import { normalize } from "./provider.js";

/**
 * How far the query moves. Constants of the method, not fitted to any catalog: the feedback weight is Rocchio's
 * textbook β = 0.75 against α = 1 for the query (Manning, Raghavan and Schütze, *Introduction to Information
 * Retrieval*, §9.1.1); 3 tools is the smallest feedback set that is more than the top hit alone (with one the moved
 * query would only echo the first tool), and the depth dense-retrieval PRF studies settle on (ANCE-PRF, k = 3).
 */
export const FEEDBACK = { tools: 3, weight: 0.75 } as const;

export interface FeedbackOptions {
  /** How many of the ranking's first tools feed the expansion. */
  tools: number;
  /** The weight of their mean against the query's own unit vector (weight 1). */
  weight: number;
}

/**
 * Each query sentence (unit vectors) moved toward the mean of the first `tools` of `ranked` (the request's
 * first-stage ranking, best first). Only what is passed feeds the expansion: pass the ranking the caller got, so a
 * hidden tool moves nothing. Without feedback (no ranked tool has a vector) each sentence stays as it is (a copy).
 */
export function expandQuery(query: readonly Float32Array[], ranked: readonly string[], vectors: VectorIndex, options: FeedbackOptions = FEEDBACK): Float32Array[] {
  // The first-stage ranking's top tools feed every sentence alike.
  const mean = vectors.mean(ranked.slice(0, options.tools));
  return query.map((sentence) => {
    if (!mean) return Float32Array.from(sentence);
    const moved = new Float32Array(sentence.length);
    for (let i = 0; i < moved.length; i++) moved[i] = sentence[i] + options.weight * mean[i];
    return normalize(moved);
  });
}
