/**
 * The regex engine: Python `re.search` patterns (as Anthropic's regex tool search takes them) run on RE2, which
 * matches in linear time, so no pattern can stall a search. Items rank by the first field that matches, in field
 * order (for tools: name, then description, then parameters); ties break by id.
 */
import { createRequire } from "node:module";
import type RE2 from "re2";
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

const require = createRequire(import.meta.url);
let re2Class: typeof RE2 | undefined;

/**
 * RE2, loaded on first use rather than on import: its native module is built by an install script, which npm ≥ 11.19
 * runs only when the project allows it. Without it, the regex engine says how to fix that, and the rest works.
 */
function newRe2(pattern: string, flags: string): RE2 {
  if (!re2Class) {
    try {
      re2Class = require("re2") as typeof RE2;
    } catch (error) {
      throw new ToolsearchError(
        "dependency_missing",
        `The regex engine needs the native module of re2, which is not built (${(error as Error).message.split("\n")[0]}). ` +
          `Allow its install script and rebuild it: add "allowScripts": {"re2": true} to your package.json, then run npm rebuild re2.`,
        { details: { package: "re2" } },
      );
    }
  }
  return new re2Class(pattern, flags);
}

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
    return newRe2(fromPythonSyntax(pattern), "iu");
  } catch (error) {
    if (error instanceof ToolsearchError) throw error;
    const reason = refusalReason(pattern, (error as Error).message);
    throw new ToolsearchError("invalid_pattern", `Invalid pattern ${JSON.stringify(pattern)}: ${reason}.`, { details: { reason } });
  }
}

/** An item as the regex engine sees it: its id and its texts, one per field, in ranking order. */
export interface RegexItem {
  id: string;
  fields: string[];
}

/** One stretch of text a pattern matched: `text.slice(start, end)`. */
export interface MatchSpan {
  start: number;
  end: number;
  text: string;
}

/** The spans a pattern matched in one field of an item (field by position, as the item gave its fields). */
export interface FieldMatch {
  field: number;
  spans: MatchSpan[];
}

/** One field of every item joined into a single text, so that one RE2 scan finds the candidates of a tier. */
interface JoinedField {
  text: string;
  /** Where each item's text starts in `text`, in item order. */
  starts: Int32Array;
}

/** Patterns whose meaning depends on the whole string's edges cannot be pre-filtered on a joined text. */
const STRING_EDGE_ANCHORS = /\\[AzZ]/;

/**
 * Holds the items' texts and answers pattern searches over them.
 *
 * A search calls into RE2 once per field over all items joined by newlines (in multi-line mode, so `^` and `$`
 * still anchor at each item's edges) to find candidates, then confirms each candidate on its own text with the
 * pattern exactly as given. A joined scan can only over-report (a match that runs across items, or `^` after an
 * inner newline), never miss an item, so the confirmation keeps Python `re.search` semantics per field.
 */
export class RegexIndex {
  private readonly items = new Map<string, string[]>();
  private ids: string[] = [];
  private joined: JoinedField[] | undefined;

  /** Field count decides the score: a match in field 0 scores `fieldCount`, field 1 `fieldCount − 1`, … */
  constructor(private readonly fieldCount: number) {}

  add(item: RegexItem): void {
    this.items.set(item.id, item.fields);
    this.joined = undefined;
  }

  remove(id: string): boolean {
    this.joined = undefined;
    return this.items.delete(id);
  }

  /**
   * Items whose fields match, best first: by the first field that matches, then by id. Lower fields are not even
   * scanned once a higher one has `limit` matches. `accept` leaves ids out before they count towards `limit`.
   */
  search(pattern: string, limit: number, accept?: (id: string) => boolean): Ranked[] {
    const exact = compilePattern(pattern);
    const joined = this.joinedFields();
    const scan = STRING_EDGE_ANCHORS.test(pattern) ? undefined : newRe2(fromPythonSyntax(pattern), "gimu");
    const found = new Set<number>();
    const hits: Ranked[] = [];
    for (let field = 0; field < this.fieldCount && hits.length < limit; field++) {
      const candidates = scan ? this.candidates(scan, joined[field]) : this.ids.keys();
      for (const i of candidates) {
        if (found.has(i) || (accept && !accept(this.ids[i]))) continue;
        const text = this.items.get(this.ids[i])![field] ?? "";
        if (text !== "" && exact.test(text)) {
          found.add(i);
          hits.push({ id: this.ids[i], score: this.fieldCount - field });
        }
      }
    }
    return topK(hits, limit);
  }

  /**
   * Where a pattern matches one item: each field (by position) with the spans it matched, at most `maxSpans` per
   * field. The item's `search` score is `fieldCount − ` the first field listed; no field listed means no match.
   */
  explain(pattern: string, id: string, maxSpans = 20): FieldMatch[] {
    compilePattern(pattern); // the same refusals as search
    const fields = this.items.get(id);
    if (!fields) return [];
    const all = newRe2(fromPythonSyntax(pattern), "giu");
    const out: FieldMatch[] = [];
    fields.forEach((text, field) => {
      if (text === "") return; // search skips empty fields too
      const spans: MatchSpan[] = [];
      all.lastIndex = 0;
      for (let m = all.exec(text); m && spans.length < maxSpans; m = all.exec(text)) {
        spans.push({ start: m.index, end: m.index + m[0].length, text: m[0] });
        if (m[0].length === 0) all.lastIndex = m.index + 1; // an empty match must not stall the scan
      }
      if (spans.length > 0) out.push({ field, spans });
    });
    return out;
  }

  /** Items a scan of the joined field touches, each at most once (the scan skips to the next item after a hit). */
  private *candidates(scan: RE2, joined: JoinedField): Iterable<number> {
    const { text, starts } = joined;
    scan.lastIndex = 0;
    for (;;) {
      const match = scan.exec(text);
      if (!match) return;
      const first = itemAt(starts, match.index);
      const last = itemAt(starts, Math.max(match.index, match.index + match[0].length - 1));
      for (let i = first; i <= last; i++) yield i;
      if (last + 1 >= starts.length) return;
      scan.lastIndex = starts[last + 1];
    }
  }

  private joinedFields(): JoinedField[] {
    if (this.joined) return this.joined;
    this.ids = [...this.items.keys()];
    this.joined = Array.from({ length: this.fieldCount }, (_, field) => {
      const starts = new Int32Array(this.ids.length);
      const parts: string[] = [];
      let offset = 0;
      this.ids.forEach((id, i) => {
        const value = this.items.get(id)![field] ?? "";
        starts[i] = offset;
        parts.push(value);
        offset += value.length + 1;
      });
      return { text: parts.join("\n"), starts };
    });
    return this.joined;
  }
}

/** The item whose text contains position `at` of a joined field (binary search over the start offsets). */
function itemAt(starts: Int32Array, at: number): number {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
