/**
 * The regex engine: Python `re.search` patterns (as Anthropic's regex tool search takes them) run on RE2, which
 * matches in linear time, so no pattern can stall a search. Items rank by the first field that matches, in field
 * order (for tools: name, then description, then parameters); ties break by id.
 */
import RE2 from "re2";
import { ToolsearchError } from "../errors.js";
import { type Ranked, topK } from "./top-k.js";

/** Anthropic's limit on a regex tool-search pattern. */
export const MAX_PATTERN_LENGTH = 200;

/** RE2's refusals, reworded to say what the construct is and why it cannot be used. */
const REFUSALS: [RegExp, string][] = [
  [/\(\?<[=!]|invalid perl operator: \(\?</, "look-behind (?<=…) / (?<!…) is not supported: RE2 matches in linear time and has no look-around"],
  [/\(\?[=!]|invalid perl operator: \(\?[=!]/, "look-ahead (?=…) / (?!…) is not supported: RE2 matches in linear time and has no look-around"],
  [/invalid escape sequence: \\[1-9]|backreference/i, "back-references (\\1, (?P=name)) are not supported: RE2 matches in linear time and cannot refer back to a group"],
  [/invalid named capture group|\(\?P=/, "back-references (\\1, (?P=name)) are not supported: RE2 matches in linear time and cannot refer back to a group"],
  [/invalid or unsupported Perl syntax: `\(\?>|\(\?>/, "atomic groups (?>…) are not supported by RE2"],
];

/** Rewrites the few spellings where Python and RE2 differ (`\Z` is RE2's `\z`); the rest is shared syntax. */
export function fromPythonSyntax(pattern: string): string {
  return pattern.replace(/(?<!\\)((?:\\\\)*)\\Z/g, "$1\\z");
}

function refusalReason(pattern: string, message: string): string {
  if (/\(\?P=\w+\)|(?<!\\)\\[1-9]/.test(pattern)) return REFUSALS[2][1];
  for (const [test, reason] of REFUSALS) if (test.test(message) || test.test(pattern)) return reason;
  return message;
}

/** Compiles a pattern case-insensitively, or throws `pattern_too_long` / `invalid_pattern` with the reason. */
export function compilePattern(pattern: string): RE2 {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new ToolsearchError(
      "pattern_too_long",
      `Pattern is ${pattern.length} characters long; the limit is ${MAX_PATTERN_LENGTH}. Use a shorter pattern.`,
      { details: { length: pattern.length, limit: MAX_PATTERN_LENGTH } },
    );
  }
  if (pattern.trim() === "") throw new ToolsearchError("invalid_pattern", "Pattern is empty: give a regular expression such as \"weather|forecast\".");
  try {
    return new RE2(fromPythonSyntax(pattern), "iu");
  } catch (error) {
    const reason = refusalReason(pattern, (error as Error).message);
    throw new ToolsearchError("invalid_pattern", `Invalid pattern ${JSON.stringify(pattern)}: ${reason}.`, { details: { reason } });
  }
}

/** An item as the regex engine sees it: its id and its texts, one per field, in ranking order. */
export interface RegexItem {
  id: string;
  fields: string[];
}

/** Holds the items' texts and answers pattern searches over them. */
export class RegexIndex {
  private readonly items = new Map<string, string[]>();

  /** Field count decides the score: a match in field 0 scores `fieldCount`, field 1 `fieldCount − 1`, … */
  constructor(private readonly fieldCount: number) {}

  add(item: RegexItem): void {
    this.items.set(item.id, item.fields);
  }

  remove(id: string): boolean {
    return this.items.delete(id);
  }

  /** Items whose fields match, best first; a compiled `RE2` or a pattern string (validated here). */
  search(pattern: string | RE2, limit: number): Ranked[] {
    const re = typeof pattern === "string" ? compilePattern(pattern) : pattern;
    const hits: Ranked[] = [];
    for (const [id, fields] of this.items) {
      const at = fields.findIndex((text) => text !== "" && re.test(text));
      if (at >= 0) hits.push({ id, score: this.fieldCount - at });
    }
    return topK(hits, limit);
  }
}
