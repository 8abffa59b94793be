/** Unicode normalization (NFKC): full-width letters, ligatures and compatibility forms become their plain forms. */
export function normalizeUnicode(text: string): string {
  return text.normalize("NFKC");
}
