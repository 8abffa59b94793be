/**
 * The one glob matcher for every pattern that comes from outside (pinned-result rules, a server block's tools/
 * resources/prompts allow and deny lists, a key's or token's `--tools-allow`/`--tools-deny`). It never backtracks:
 * a glob is cut at its `*`s into literal segments; the first must start the text, the last must end it, and each one
 * between is found at its leftmost place after the one before. Leftmost is always right for globs (a later place
 * leaves less room for the rest), so nothing is ever retried. A segment without `?` is found with Knuth–Morris–Pratt,
 * so a `*`-only glob (the rules) costs O(text + pattern) whatever its shape; a segment with `?` is tried at each
 * place, so at worst O(text × segment) — still no exponential blow-up. A `RegExp` built from a glob (`^a.*a.*…b$`)
 * backtracks instead, and one rule once froze a whole service (issue 38).
 *
 * Texts and patterns are compared by code point, so `?` is one character even outside the BMP.
 *
 * @example
 * ```ts
 * const match = compileGlob("read_*");
 * match("read_file"); // true
 * compileGlob("why?", { questionMark: "literal" })("why?"); // true; "whys" would not match
 * ```
 */

/** How a glob reads its characters. */
export interface GlobOptions {
  /** `any` (default): `?` is any one character. `literal`: `?` is itself (the rules' patterns only know `*`). */
  questionMark?: "any" | "literal";
  /** When given, counts the character comparisons made (for tests that bound the work). */
  counter?: { steps: number };
}

/**
 * A compiled glob: whether a whole text matches it. The text may be given as its code points (`codePoints`), so that
 * many globs tried on one text (the rules of a collection, on each search) split it once.
 */
export type GlobMatcher = (text: string | readonly number[]) => boolean;

/** A text's code points, the form globs compare. */
export function codePoints(text: string): number[] {
  return Array.from(text, (c) => c.codePointAt(0)!);
}

const ANY = -1;

interface Segment {
  chars: number[];
  /** KMP failure table, when the segment has no `?` wildcard. */
  failure?: Int32Array;
}

/** Compiles a glob once, for matching many texts. */
export function compileGlob(pattern: string, options: GlobOptions = {}): GlobMatcher {
  const wildcard = (options.questionMark ?? "any") === "any";
  const segments: Segment[] = pattern.split("*").map((part) => {
    const chars = [...part].map((c) => (wildcard && c === "?" ? ANY : c.codePointAt(0)!));
    return chars.includes(ANY) ? { chars } : { chars, failure: failureTable(chars) };
  });
  const counter = options.counter;
  return (text) => matchSegments(segments, typeof text === "string" ? codePoints(text) : text, counter);
}

/** Whether `text` matches `pattern` as a whole (a one-off `compileGlob`). */
export function matchGlob(pattern: string, text: string, options?: GlobOptions): boolean {
  return compileGlob(pattern, options)(text);
}

function matchSegments(segments: Segment[], text: readonly number[], counter?: { steps: number }): boolean {
  const first = segments[0];
  const last = segments[segments.length - 1];
  if (segments.length === 1) return first.chars.length === text.length && matchesAt(first.chars, text, 0, counter);
  // Room for the first and the last segment, which do not overlap: `a*a` needs two characters.
  if (first.chars.length + last.chars.length > text.length) return false;
  if (!matchesAt(first.chars, text, 0, counter)) return false;
  const end = text.length - last.chars.length;
  if (!matchesAt(last.chars, text, end, counter)) return false;
  let from = first.chars.length;
  for (let i = 1; i < segments.length - 1; i++) {
    const at = find(segments[i], text, from, end, counter);
    if (at < 0) return false;
    from = at + segments[i].chars.length;
  }
  return true;
}

function same(p: number, c: number): boolean {
  return p === ANY || p === c;
}

function matchesAt(chars: number[], text: readonly number[], at: number, counter?: { steps: number }): boolean {
  for (let i = 0; i < chars.length; i++) {
    if (counter) counter.steps++;
    if (!same(chars[i], text[at + i])) return false;
  }
  return true;
}

/** The leftmost place in `text[from, end)` where the segment fits whole, or -1. */
function find(segment: Segment, text: readonly number[], from: number, end: number, counter?: { steps: number }): number {
  const { chars, failure } = segment;
  if (!chars.length) return from;
  if (!failure) {
    for (let at = from; at + chars.length <= end; at++) if (matchesAt(chars, text, at, counter)) return at;
    return -1;
  }
  let k = 0;
  for (let i = from; i < end; i++) {
    while (k > 0 && chars[k] !== text[i]) {
      if (counter) counter.steps++;
      k = failure[k - 1];
    }
    if (counter) counter.steps++;
    if (chars[k] === text[i]) k++;
    if (k === chars.length) return i - k + 1;
  }
  return -1;
}

/** For each prefix of `chars`, the length of its longest proper prefix that is also a suffix. */
function failureTable(chars: number[]): Int32Array {
  const table = new Int32Array(chars.length);
  let k = 0;
  for (let i = 1; i < chars.length; i++) {
    while (k > 0 && chars[i] !== chars[k]) k = table[k - 1];
    if (chars[i] === chars[k]) k++;
    table[i] = k;
  }
  return table;
}
