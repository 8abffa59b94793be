import type { Token } from "../token.js";

/**
 * A word, or a compound identifier whose parts are joined by `_ - . / :` (`orders.v2.list`, `C-5521`).
 * Combining marks count as part of a word so that decomposed diacritics do not split it.
 */
const CHUNK = /[\p{L}\p{M}\p{N}]+(?:[._\-/:][\p{L}\p{M}\p{N}]+)*/gu;
/** The same for pure-ASCII text, which is most text and much faster without Unicode classes. */
const ASCII_CHUNK = /[A-Za-z0-9]+(?:[._\-/:][A-Za-z0-9]+)*/g;
const NON_ASCII = /[^\x00-\x7f]/;

/** Splits text into word and identifier chunks; punctuation and white space separate them. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const pattern = NON_ASCII.test(text) ? CHUNK : ASCII_CHUNK;
  for (const match of text.matchAll(pattern)) tokens.push({ text: match[0] });
  return tokens;
}
