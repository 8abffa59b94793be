/**
 * Pinned results: a rule whose pattern matches the whole query (case and spacing ignored, `*` any run of characters)
 * puts its tools first, in the rule's order, above whatever the engine ranked. Only tools the index holds are pinned,
 * so a rule never reveals a tool the caller cannot see. The first matching rule wins.
 *
 * @example
 * ```ts
 * const pins = new PinnedRules({ rules: [{ query: "refund*", pin: ["process_refund"] }] });
 * pins.match("Refund my order")?.pin; // ["process_refund"]
 * ```
 */
import type { Ranked } from "../engines/top-k.js";
import { codePoints, compileGlob, type GlobMatcher } from "../text/glob.js";
import { CURATION_LIMITS, type PinRule, type Rules } from "./curation.js";

/** A tool the rule put first, and where. */
export interface PinnedPlace {
  rule: string;
  /** 1-based position the rule gave it. */
  position: number;
}

export class PinnedRules {
  private readonly compiled: { rule: PinRule; matches: GlobMatcher }[];

  /** `counter`, when given, counts the character comparisons of every match (for tests that bound the work). */
  constructor(rules: Rules, counter?: { steps: number }) {
    this.compiled = rules.rules.map((rule) => ({ rule, matches: globPattern(rule.query, counter) }));
  }

  get size(): number {
    return this.compiled.length;
  }

  /**
   * The first rule matching the query, if any. A query longer than `CURATION_LIMITS.ruleQueryChars` matches none:
   * that cap, not the rules' shapes, bounds what a search spends here.
   */
  match(query: string): PinRule | undefined {
    const text = normalize(query);
    // UTF-16 length ≥ code points, so the cheap test first; the exact one on what is left.
    if (text.length > CURATION_LIMITS.ruleQueryChars * 2) return undefined;
    const points = codePoints(text);
    if (points.length > CURATION_LIMITS.ruleQueryChars) return undefined;
    return this.compiled.find((c) => c.matches(points))?.rule;
  }

  /**
   * The ranking with the matching rule's tools first (those `exists` accepts), each scored just above the best
   * unpinned hit so scores stay in order; the rest keeps its order, cut to `limit`.
   */
  apply(query: string, ranked: Ranked[], limit: number, exists: (name: string) => boolean): Ranked[] {
    const rule = this.match(query);
    if (!rule) return ranked.slice(0, limit);
    const pinned = [...new Set(rule.pin)].filter(exists);
    if (!pinned.length) return ranked.slice(0, limit);
    const rest = ranked.filter((hit) => !pinned.includes(hit.id));
    const top = Math.max(0, ...ranked.map((h) => h.score));
    const own = new Map(ranked.map((h) => [h.id, h.score]));
    const head = pinned.map((id, i) => ({ id, score: Math.max(own.get(id) ?? 0, top) + (pinned.length - i) * 1e-6 }));
    return [...head, ...rest].slice(0, limit);
  }

  /** Where the matching rule pinned `name`, if it did. */
  placeOf(query: string, name: string, exists: (name: string) => boolean): PinnedPlace | undefined {
    const rule = this.match(query);
    const at = rule ? [...new Set(rule.pin)].filter(exists).indexOf(name) : -1;
    return rule && at >= 0 ? { rule: rule.query, position: at + 1 } : undefined;
  }
}

function normalize(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, " ");
}

/**
 * A whole-query pattern: `*` is any run of characters, everything else literal (`?` too: queries are questions).
 * Patterns come from outside (REST, catalog files), so they never reach a backtracking `RegExp` (text/glob.ts).
 */
function globPattern(query: string, counter?: { steps: number }): GlobMatcher {
  return compileGlob(normalize(query), { questionMark: "literal", counter });
}
