/**
 * Synonyms at query analysis: each analyzed query term gains the terms of its synonyms, so the BM25 engine matches
 * them as it matches the query's own words. Applied to queries only (the index is unchanged), so editing synonyms
 * takes effect at once, without a rebuild.
 *
 * @example
 * ```ts
 * const expand = new SynonymExpander({ groups: [["pto", "vacation"]] }, createAnalyzer());
 * expand.expand(["pto", "polici"]).terms; // ["pto", "polici", "vacat"]
 * ```
 */
import type { Analyzer } from "../text/analyzer.js";
import type { Synonyms } from "./curation.js";

/** One query term that synonyms expanded, and the terms it added. */
export interface SynonymExpansion {
  term: string;
  added: string[];
}

export class SynonymExpander {
  /** analyzed term → analyzed terms it expands to. */
  private readonly map = new Map<string, string[]>();

  constructor(synonyms: Synonyms, analyzer: Analyzer) {
    const link = (from: string, to: string) => {
      // Only a single-term word can be recognised in a query's terms; a phrase may still be a target.
      const key = analyzer.analyze(from);
      if (key.length !== 1) return;
      const targets = analyzer.analyze(to).filter((t) => t !== key[0]);
      const list = this.map.get(key[0]) ?? [];
      for (const t of targets) if (!list.includes(t)) list.push(t);
      if (list.length) this.map.set(key[0], list);
    };
    for (const group of synonyms.groups ?? []) for (const a of group) for (const b of group) if (a !== b) link(a, b);
    for (const [word, targets] of Object.entries(synonyms.oneWay ?? {})) for (const t of targets) link(word, t);
  }

  get size(): number {
    return this.map.size;
  }

  /** The query's terms followed by the terms synonyms add (each added once, none already in the query). */
  expand(terms: string[]): { terms: string[]; expansions: SynonymExpansion[] } {
    const seen = new Set(terms);
    const out = [...terms];
    const expansions: SynonymExpansion[] = [];
    for (const term of new Set(terms)) {
      const added = (this.map.get(term) ?? []).filter((t) => !seen.has(t));
      if (!added.length) continue;
      for (const t of added) seen.add(t);
      out.push(...added);
      expansions.push({ term, added });
    }
    return { terms: out, expansions };
  }
}
