import type { Token } from "../token.js";

/** Most tokens are plain words with nothing to split; this skips the costlier boundary search for them. */
const PLAIN_WORD = /^(?:[A-Z]?[a-z]+|[A-Z]+|[0-9]+)$/;
const PLAIN_UNICODE_WORD = /^(?:\p{Lu}?[\p{Ll}\p{M}]+|[\p{Lu}\p{M}]+|\p{N}+)$/u;
const SEPARATORS = /[._\-/:]+/u;
// Case and digit boundaries: getStock|Level, HTTP|Server, Server|2, 2|Config.
const CASE_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;

function subParts(part: string): string[] {
  return part.split(CASE_BOUNDARY).filter(Boolean);
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
    if (PLAIN_WORD.test(token.text) || PLAIN_UNICODE_WORD.test(token.text)) {
      if (isMeaningful(token.text)) out.push(token);
      continue;
    }
    const parts = token.text.split(SEPARATORS).filter(Boolean);
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
