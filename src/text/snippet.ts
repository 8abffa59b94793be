/**
 * Snippets: a short preview of a text that starts near the first word a query matched, so that a match deep inside a
 * long article is shown rather than the article's opening lines. Cut on word boundaries with "…" where text was left
 * out; never longer than asked, never splitting a surrogate pair (so never cutting a character in UTF-8 either).
 *
 * @example
 * ```ts
 * const { snippet, offset } = makeSnippet(body, passage, (word) => terms.has(word.toLowerCase()));
 * ```
 */
import { safeCut } from "./passages.js";
import { truncateAtWord } from "./truncate.js";

/** How a snippet is cut. */
export interface SnippetOptions {
  /** Longest snippet in UTF-16 code units, ellipses included (default 240, as SPEC §4 sets). */
  maxChars?: number;
  /**
   * How far before the matching word a snippet may start, to begin at its sentence (default 60 characters); when
   * the sentence starts further back, the snippet starts at the word itself.
   */
  lead?: number;
}

/** A snippet and where in the text it starts (for `read(id, { offset })`). */
export interface Snippet {
  snippet: string;
  offset: number;
}

export const SNIPPET_CHARS = 240;

/** Words as the tokenizer sees them: letters, marks and digits, joined by `_ - . / :` inside identifiers. */
const WORD = /[\p{L}\p{M}\p{N}]+(?:[._\-/:][\p{L}\p{M}\p{N}]+)*/gu;
/** Where a sentence may start: after a sentence end and white space, or after a line break. */
const SENTENCE_START = /(?:[.!?。！？…]["')\]]*\s+|\n\s*)(?=\S)/g;

/**
 * A snippet of `text` for the range `within` (a passage): it starts at the sentence of the first word in the range
 * for which `isMatch` holds (or at the range's start when none does) and runs on for up to `maxChars`.
 */
export function makeSnippet(
  text: string,
  within: { start: number; end: number },
  isMatch: (word: string) => boolean,
  options: SnippetOptions = {},
): Snippet {
  const maxChars = Math.max(10, options.maxChars ?? SNIPPET_CHARS);
  const lead = options.lead ?? 60;
  const match = firstMatch(text, within, isMatch);
  const start = match === undefined ? within.start : sentenceStart(text, within.start, match, lead);
  return { snippet: cut(text, start, maxChars), offset: start };
}

/** Offset of the first word in the range that matches, or undefined. */
function firstMatch(text: string, within: { start: number; end: number }, isMatch: (word: string) => boolean): number | undefined {
  WORD.lastIndex = within.start;
  for (let m = WORD.exec(text); m !== null && m.index < within.end; m = WORD.exec(text)) {
    if (isMatch(m[0])) return m.index;
  }
  return undefined;
}

/**
 * The start of the last sentence that begins at most `lead` characters before `at` (the passage's start counts as
 * one), or `at` itself when none does.
 */
function sentenceStart(text: string, passageStart: number, at: number, lead: number): number {
  const from = at - lead;
  if (passageStart >= from) return passageStart;
  let best = at;
  SENTENCE_START.lastIndex = from;
  for (let m = SENTENCE_START.exec(text); m !== null; m = SENTENCE_START.exec(text)) {
    const start = m.index + m[0].length;
    if (start > at) break;
    best = start;
  }
  return best;
}

/** Up to `maxChars` of `text` from `start`, white space collapsed, with "…" where something was left out. */
function cut(text: string, start: number, maxChars: number): string {
  const before = start > 0 ? "…" : "";
  const room = maxChars - before.length;
  // Read a generous window: collapsing white space can only shorten it.
  const end = safeCut(text, Math.min(text.length, start + room * 2 + 1));
  let body = truncateAtWord(text.slice(start, end), room);
  if (end < text.length && !body.endsWith("…")) {
    // The window's text happened to fit once its white space was collapsed; the rest is still left out.
    body = body.length < room ? `${body}…` : truncateAtWord(body, room - 1);
  }
  return before + body;
}
