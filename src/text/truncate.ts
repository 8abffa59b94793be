/**
 * Cuts text to at most `max` characters (UTF-16 code units, as JavaScript and JSON count them) at a word boundary,
 * ending with "…" when something was cut. A surrogate pair is never split.
 *
 * @example
 * ```ts
 * truncateAtWord("Get the current weather in a given city", 20); // "Get the current…"
 * ```
 */
export function truncateAtWord(text: string, max: number): string {
  const clean = text.replace(/\s+/g, " ").trim();
  if (clean.length <= max) return clean;
  const room = max - 1; // leave room for the ellipsis
  let cut = clean.lastIndexOf(" ", room);
  if (cut < room * 0.6) cut = room; // one very long word: cut inside it rather than drop most of the text
  if (isLowSurrogate(clean.charCodeAt(cut))) cut--;
  return clean.slice(0, cut).replace(/[\s,;:.\-–—]+$/u, "") + "…";
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
