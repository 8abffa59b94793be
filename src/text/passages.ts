/**
 * Splits a long text into passages for scoring: paragraphs are packed together up to a size, and a paragraph that is
 * too long on its own is cut at a sentence end, else at white space. Passages are character ranges of the original
 * text (UTF-16 offsets), so a hit in a passage can point into the text and a snippet can be cut from it.
 *
 * @example
 * ```ts
 * splitPassages("First paragraph.\n\nSecond one.", { maxChars: 20 }); // [{ start: 0, end: 16 }, { start: 18, end: 29 }]
 * ```
 */

/** A passage: the text between `start` (inclusive) and `end` (exclusive). */
export interface Passage {
  start: number;
  end: number;
}

/** How texts are cut into passages. */
export interface PassageOptions {
  /**
   * Longest passage in characters (default 1000, about 150–200 English words). Shorter passages point more precisely
   * at a match; longer ones keep more context for scoring.
   */
  maxChars?: number;
}

export const DEFAULT_PASSAGE_CHARS = 1000;

const PARAGRAPH_BREAK = /\n[ \t]*\n\s*/g;
/** A sentence end followed by white space: a good place to cut an over-long paragraph. */
const SENTENCE_END = /[.!?。！？…]["')\]]*\s+|\n+/g;

/** The passages of `text`, in order. An empty text has one empty passage, so that a title alone is still indexed. */
export function splitPassages(text: string, options: PassageOptions = {}): Passage[] {
  const maxChars = Math.max(50, options.maxChars ?? DEFAULT_PASSAGE_CHARS);
  const pieces = paragraphs(text).flatMap((p) => cutLong(text, p, maxChars));
  if (pieces.length === 0) return [{ start: 0, end: text.length }];
  const passages: Passage[] = [];
  let current = { ...pieces[0] };
  for (const piece of pieces.slice(1)) {
    if (piece.end - current.start <= maxChars) current.end = piece.end;
    else {
      passages.push(current);
      current = { ...piece };
    }
  }
  passages.push(current);
  return passages;
}

/** Paragraph ranges, trimmed of surrounding white space; blank paragraphs are skipped. */
function paragraphs(text: string): Passage[] {
  const out: Passage[] = [];
  let start = 0;
  const push = (s: number, e: number) => {
    const trimmed = trimRange(text, s, e);
    if (trimmed.end > trimmed.start) out.push(trimmed);
  };
  for (const match of text.matchAll(PARAGRAPH_BREAK)) {
    push(start, match.index);
    start = match.index + match[0].length;
  }
  push(start, text.length);
  return out;
}

/** Cuts one paragraph into pieces of at most `maxChars`, preferring sentence ends, then white space. */
function cutLong(text: string, range: Passage, maxChars: number): Passage[] {
  const out: Passage[] = [];
  let start = range.start;
  while (range.end - start > maxChars) {
    const limit = start + maxChars;
    const end = lastBreak(text, start, limit, SENTENCE_END, maxChars / 3) ?? lastBreak(text, start, limit, /\s+/g, maxChars / 3) ?? safeCut(text, limit);
    const piece = trimRange(text, start, end);
    if (piece.end > piece.start) out.push(piece);
    start = trimRange(text, end, range.end).start;
  }
  if (range.end > start) out.push({ start, end: range.end });
  return out;
}

/** The end of the last match of `pattern` in (start + minLength, limit], or undefined. */
function lastBreak(text: string, start: number, limit: number, pattern: RegExp, minLength: number): number | undefined {
  let best: number | undefined;
  const window = text.slice(start, limit + 1);
  for (const match of window.matchAll(pattern)) {
    const end = start + match.index + match[0].length;
    if (end > limit) break;
    if (match.index >= minLength) best = start + match.index + match[0].trimEnd().length;
  }
  return best;
}

/** `at`, moved back one when it would split a surrogate pair. */
export function safeCut(text: string, at: number): number {
  if (at <= 0 || at >= text.length) return Math.max(0, Math.min(at, text.length));
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}

function trimRange(text: string, start: number, end: number): Passage {
  while (start < end && /\s/.test(text[start])) start++;
  while (end > start && /\s/.test(text[end - 1])) end--;
  return { start, end };
}
