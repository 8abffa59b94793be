import type { Token } from "../token.js";

/** Lower-cases every token (locale-independent, so `I` never becomes a dotless `ı`). */
export function lowercase(tokens: Token[]): Token[] {
  for (const t of tokens) t.text = t.text.toLowerCase();
  return tokens;
}
