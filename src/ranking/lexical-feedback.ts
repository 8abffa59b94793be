/**
 * Pseudo-relevance feedback in words (RM3's expansion step): the terms that weigh most in the text of the first-stage
 * ranking's top tools, which the learned ranker's `prf_bm25` scores every candidate against. The lexical analogue of
 * `prf_cosine` (`embeddings/feedback.ts`): the same top tools, their words instead of their vectors. A separate
 * feature the model weighs, never a change to the `bm25` query (RM3 replacing the query lost nDCG@10 on every set,
 * `scripts/bm25-variants.ts`).
 */

/**
 * Constants of the method, not fitted to any catalog: 10 expansion terms is RM3's default in Anserini; 3 feedback
 * tools are the ones `prf_cosine` reads (`FEEDBACK.tools`), so both feedback features describe the same tools.
 */
export const LEXICAL_FEEDBACK = { tools: 3, terms: 10 } as const;

/** A term of a feedback tool: its frequency in that tool (all fields) and its idf in the searched catalog. */
export interface DocumentTerm {
  term: string;
  tf: number;
  idf: number;
}

/**
 * The `count` terms of the feedback tools' text weighing most by (frequency in those tools × idf), best first, ties by
 * term. Letters only, as Anserini's RM3 filters: numbers and mixed tokens name versions and ids, not topics. Only the
 * tools passed contribute: pass what the caller may see.
 */
export function expansionTerms(tools: readonly (readonly DocumentTerm[])[], count: number = LEXICAL_FEEDBACK.terms): string[] {
  const weight = new Map<string, number>();
  for (const terms of tools) {
    for (const { term, tf, idf } of terms) if (/^\p{L}+$/u.test(term)) weight.set(term, (weight.get(term) ?? 0) + tf * idf);
  }
  return [...weight]
    .filter(([, w]) => w > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, count)
    .map(([term]) => term);
}
