import type { Token } from "../token.js";

/**
 * A word, or a compound identifier whose parts are joined by `_ - . / :` (`orders.v2.list`, `C-5521`).
 * Combining marks count as part of a word so that decomposed diacritics do not split it.
 */
const CHUNK = /[\p{L}\p{M}\p{N}]+(?:[._\-/:][\p{L}\p{M}\p{N}]+)*/gu;
/** The same for pure-ASCII text, which is most text and much faster without Unicode classes. */
const ASCII_CHUNK = /[A-Za-z0-9]+(?:[._\-/:][A-Za-z0-9]+)*/g;
const NON_ASCII = /[^\x00-\x7f]/;
/**
 * What `chunkTexts` gives a text without chunks: an empty array of the same kind as `match`'s (an empty literal is
 * another kind of array to V8, and meeting it sends a build's optimised loop back to the interpreter).
 */
const noChunks = (): string[] => [""].slice(1);

/** Splits text into word and identifier chunks; punctuation and white space separate them. */
export function tokenize(text: string): Token[] {
  return chunkTexts(text).map((chunk) => ({ text: chunk }));
}

/**
 * `tokenize` as plain strings, for the analyzer's hot path: one `match` call, with no match object per chunk.
 * `ascii` may be given when the caller already knows whether the text is pure ASCII.
 */
export function chunkTexts(text: string, ascii = !NON_ASCII.test(text)): string[] {
  return text.match(ascii ? ASCII_CHUNK : CHUNK) ?? noChunks();
}

/** Whether text has a character outside ASCII (such text needs Unicode normalization and Unicode classes). */
export function hasNonAscii(text: string): boolean {
  return NON_ASCII.test(text);
}
