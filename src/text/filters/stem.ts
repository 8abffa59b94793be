import { stem as porter2 } from "porter2";
import type { Token } from "../token.js";

/**
 * Stems are memoized across every analyzer of the process: the same words recur in every catalog and query. Bounded
 * (emptied when full) so that a long-running service's memory does not grow with every word it ever met.
 */
const memo = new Map<string, string>();
const MEMO_LIMIT = 65_536;
const DIGIT = /\d/;
const ASCII_CHARACTER = /[\x00-\x7f]/;

/**
 * Stems one English word with Porter2 (Snowball's English algorithm, `porter2` package). Porter2 is chosen over the
 * original Porter stemmer because it works inside R1/R2 regions and so leaves short non-English syllables alone
 * (Vietnamese `lay`, `day`, `tuy` stay as they are, where Porter makes them `lai`, `dai`, `tui`).
 */
export function stemWord(word: string): string {
  let stemmed = memo.get(word);
  if (stemmed === undefined) {
    stemmed = stemOnce(word);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(word, stemmed);
  }
  return stemmed;
}

/**
 * `stemWord` without the memo, for a caller that meets each word once (a bulk build remembers its words' ids itself):
 * a cold build would only add misses to the memo.
 */
export function stemOnce(word: string): string {
  // Porter2 reads ASCII letters only: a word with no ASCII character (Han, kana, Cyrillic …) is its own stem.
  return word.length > 3 && !DIGIT.test(word) && ASCII_CHARACTER.test(word) ? porter2(word) : word;
}

/** Builds the filter that stems every token but the joined forms of identifiers. */
export function stemEnglish() {
  return (tokens: Token[]): Token[] => {
    for (const t of tokens) if (!t.keyword) t.text = stemWord(t.text);
    return tokens;
  };
}
