import type { Token } from "../token.js";

/** Letters that carry no combining mark to strip but still have a plain Latin form. */
const SPECIAL_LETTERS: Record<string, string> = {
  đ: "d", ð: "d", ø: "o", ł: "l", ß: "ss", æ: "ae", œ: "oe", þ: "th", ı: "i", ħ: "h", ŧ: "t",
};
const SPECIAL = new RegExp(`[${Object.keys(SPECIAL_LETTERS).join("")}]`, "gu");
const MARKS = /\p{M}+/gu;
const ASCII = /^[\x00-\x7f]*$/;

/** Folds one (lower-case) string to its base letters: `lấy thông tin` → `lay thong tin`, `đơn` → `don`. */
export function foldText(text: string): string {
  if (ASCII.test(text)) return text;
  return text.normalize("NFD").replace(MARKS, "").replace(SPECIAL, (c) => SPECIAL_LETTERS[c] ?? c).normalize("NFC");
}

/** Removes diacritics, so text typed with and without accents matches (Vietnamese included). */
export function foldDiacritics(tokens: Token[]): Token[] {
  for (const t of tokens) t.text = foldText(t.text);
  // A chunk of combining marks alone (e.g. the stem of a musical symbol, U+1D165) folds to nothing: no empty terms.
  return tokens.some((t) => t.text === "") ? tokens.filter((t) => t.text !== "") : tokens;
}
