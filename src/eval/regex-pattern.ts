/** A simple regex derived from a natural-language query, for evaluating and benchmarking the regex engine. */
import { ENGLISH_STOPWORDS } from "../text/filters/stopwords.js";

/**
 * The query's three longest content words as alternatives (`weather|forecast|paris`), each escaped: roughly what an
 * agent writes when asked to search by pattern.
 */
export function patternFromQuery(query: string, words = 3): string {
  const content = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])].filter((w) => !ENGLISH_STOPWORDS.has(w));
  const chosen = content.sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).slice(0, words);
  return chosen.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|") || ".";
}
