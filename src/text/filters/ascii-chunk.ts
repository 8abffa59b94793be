/**
 * The chunk filters (split identifiers → lower case → fold → stopwords → stem) fused into one scan for a chunk of
 * plain ASCII, most chunks of most catalogs. It gives exactly the terms of the token pipeline (a property test compares
 * them), without its regular expressions, token objects and intermediate arrays: a cold catalog build analyzes tens of
 * thousands of distinct chunks before V8 has optimised the pipeline's many small functions, and there the pipeline
 * cost several microseconds a chunk (docs/benchmarks.md, "Issue 37", cold build).
 */

/**
 * Receives the words of a chunk in order: a lower-case piece (`whole` false), which the caller passes on through
 * stopwords and stemming, or an identifier's joined form (`whole` true), which is a term as it is.
 */
export type WordSink = (word: string, whole: boolean) => void;

/**
 * The words of an ASCII chunk (`[A-Za-z0-9]` runs joined by `._-/:`, as `chunkTexts` cuts them), in order:
 * `splitIdentifiers`'s pieces, then the joined form, lower-cased.
 */
export function asciiChunkWords(chunk: string, emit: WordSink): void {
  const lower = chunk.toLowerCase();
  const n = chunk.length;
  let parts = 0;
  let separated = false;
  for (let i = 0; i < n; i++) {
    if (isSeparator(chunk.charCodeAt(i))) separated = true;
    else if (i === 0 || isSeparator(chunk.charCodeAt(i - 1))) parts++;
  }
  // The pieces' bounds first, then one loop hands them on: one call site of `emit` for all pieces.
  let cut = 0;
  for (let start = 0; start < n;) {
    while (start < n && isSeparator(chunk.charCodeAt(start))) start++;
    if (start === n) break;
    let end = start;
    while (end < n && !isSeparator(chunk.charCodeAt(end))) end++;
    if (parts > 1) cut = addPiece(cut, start, end);
    let from = start;
    for (let i = start + 1; i < end; i++) {
      if (!isBoundary(chunk, i, end)) continue;
      cut = addPiece(cut, from, i);
      from = i;
    }
    if (from !== start) cut = addPiece(cut, from, end);
    start = end;
  }
  if (cut === 0) {
    // Nothing to split: the chunk is a plain word.
    if (meaningful(chunk, 0, n)) emit(lower, false);
    return;
  }
  for (let c = 0; c < cut; c += 2) {
    const from = cuts[c];
    const to = cuts[c + 1];
    // A lone letter is no piece (a lone digit is).
    if (meaningful(chunk, from, to)) emit(lower.slice(from, to), false);
  }
  emit(separated ? lower.replace(SEPARATORS, "") : lower, true);
}

const SEPARATORS = /[._\-/:]+/g;

/** Pieces of the chunk being scanned: start and end of each, in order (grown as needed; scans never nest). */
let cuts = new Int32Array(64);

function addPiece(cut: number, from: number, to: number): number {
  if (cut + 2 > cuts.length) {
    const grown = new Int32Array(2 * cuts.length);
    grown.set(cuts);
    cuts = grown;
  }
  cuts[cut] = from;
  cuts[cut + 1] = to;
  return cut + 2;
}

function meaningful(chunk: string, from: number, to: number): boolean {
  return to - from > 1 || isDigit(chunk.charCodeAt(from));
}

/**
 * `splitIdentifiers`' case and digit boundary before index `i` of a part ending at `end`: getStock|Level, HTTP|Server,
 * Server|2, 2|Config.
 */
function isBoundary(chunk: string, i: number, end: number): boolean {
  const before = chunk.charCodeAt(i - 1);
  const at = chunk.charCodeAt(i);
  if (isDigit(before) !== isDigit(at)) return true;
  if (!isUpper(at)) return false;
  return !isUpper(before) || (i + 1 < end && isLower(chunk.charCodeAt(i + 1)));
}

/** `.` `_` `-` `/` `:` */
function isSeparator(code: number): boolean {
  return code === 46 || code === 95 || code === 45 || code === 47 || code === 58;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isUpper(code: number): boolean {
  return code >= 65 && code <= 90;
}

function isLower(code: number): boolean {
  return code >= 97 && code <= 122;
}
