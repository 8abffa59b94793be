// The package's ES module build: its default entry is a 237 KB CommonJS file that takes five times as long to load,
// and the English list is needed before a gateway's first answer (docs/benchmarks.md, "Launch time").
import { eng } from "stopword/dist/stopword.esm.mjs";
import type { Token } from "../token.js";

/**
 * Verbs that the general English list treats as noise but that tell tools apart (`get_user` vs `delete_user`,
 * `make_payment`), so they stay searchable.
 */
const TOOL_VERBS = new Set(["get", "got", "make", "made", "take", "come", "came", "like"]);

/** English stopwords from the `stopword` package, less the verbs that name tool actions. */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(eng.filter((w) => !TOOL_VERBS.has(w)));

/** Builds a filter that drops stopwords (never the joined form of an identifier). */
export function removeStopwords(stopwords: ReadonlySet<string> = ENGLISH_STOPWORDS) {
  return (tokens: Token[]): Token[] => tokens.filter((t) => t.keyword || !stopwords.has(t.text));
}
