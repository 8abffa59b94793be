import type { Token } from "../token.js";

/** Most tokens are plain words with nothing to split; this skips the costlier boundary search for them. */
const PLAIN_WORD = /^(?:[A-Z]?[a-z]+|[A-Z]+|[0-9]+)$/;
const PLAIN_UNICODE_WORD = /^(?:\p{Lu}?[\p{Ll}\p{M}]+|[\p{Lu}\p{M}]+|\p{N}+)$/u;
const SEPARATORS = /[._\-/:]+/u;
// Case and digit boundaries: getStock|Level, HTTP|Server, Server|2, 2|Config.
const CASE_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;

const ASCII_ALNUM = /^[A-Za-z0-9]+$/;
const ASCII_IDENTIFIER = /^[A-Za-z0-9._\-/:]+$/;
const ASCII_SEPARATORS = /[._\-/:]+/;

/**
 * Every `CASE_BOUNDARY` has an upper-case letter or a digit on one side: a part with neither (a Han or kana phrase, most
 * words of caseless scripts, lower-case accented words) has no boundary, and skips the look-behind search, which costs
 * tens of microseconds on a long phrase.
 */
const CASE_OR_DIGIT = /[\p{Lu}\p{N}]/u;

const SPLITS = /[._\-/:\p{Lu}\p{N}]/u;

/**
 * Whether `splitIdentifiers` may split `chunk` at all: only at a separator, an upper-case letter or a digit. A chunk
 * with none of them (a Han or kana phrase, a lower-case accented word) is one word.
 */
export function mightSplit(chunk: string): boolean {
  return SPLITS.test(chunk);
}

/** A part between separators split at case and digit boundaries (exported for its property test). */
export function subParts(part: string): string[] {
  if (ASCII_ALNUM.test(part)) return asciiSubParts(part);
  return CASE_OR_DIGIT.test(part) ? part.split(CASE_BOUNDARY).filter(Boolean) : [part];
}

/** Character classes of `asciiSubParts`. */
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;

function asciiClass(code: number): number {
  if (code >= 97 && code <= 122) return LOWER;
  return code >= 65 && code <= 90 ? UPPER : DIGIT;
}

/**
 * `CASE_BOUNDARY` for an ASCII letters-and-digits part, scanned by character code: the Unicode look-behinds cost
 * several microseconds a part, and a catalog's parameter names are mostly such parts.
 */
function asciiSubParts(part: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let i = 1; i < part.length; i++) {
    const before = asciiClass(part.charCodeAt(i - 1));
    const at = asciiClass(part.charCodeAt(i));
    const boundary = (at === UPPER && before !== UPPER)
      || (before === UPPER && at === UPPER && i + 1 < part.length && asciiClass(part.charCodeAt(i + 1)) === LOWER)
      || ((before === DIGIT) !== (at === DIGIT));
    if (boundary) {
      pieces.push(part.slice(start, i));
      start = i;
    }
  }
  pieces.push(part.slice(start));
  return pieces;
}

/**
 * Splits identifiers into their words and keeps the whole identifier as one more token:
 * `getStockLevel` → `get`, `Stock`, `Level`, `getStockLevel`(keyword). The whole form drops separators, so
 * `get_stock_level`, `get-stock-level` and `getStockLevel` share it. Single letters are dropped as parts (they carry
 * no meaning alone, like the `s` of `API's`) but stay inside the whole form.
 */
export function splitIdentifiers(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (const token of tokens) {
    // The Unicode patterns say the same as the ASCII ones on ASCII text, only slower.
    const ascii = ASCII_IDENTIFIER.test(token.text);
    if (PLAIN_WORD.test(token.text) || (!ascii && PLAIN_UNICODE_WORD.test(token.text))) {
      if (isMeaningful(token.text)) out.push(token);
      continue;
    }
    const parts = token.text.split(ascii ? ASCII_SEPARATORS : SEPARATORS).filter(Boolean);
    const pieces: string[] = [];
    for (const part of parts) {
      const sub = subParts(part);
      if (parts.length > 1) pieces.push(part);
      if (sub.length > 1) pieces.push(...sub);
    }
    if (pieces.length === 0) {
      if (isMeaningful(token.text)) out.push(token);
      continue;
    }
    for (const piece of pieces) if (isMeaningful(piece)) out.push({ text: piece });
    out.push({ text: parts.join(""), keyword: true });
  }
  return out;
}

function isMeaningful(piece: string): boolean {
  return piece.length > 1 || /\p{N}/u.test(piece);
}
