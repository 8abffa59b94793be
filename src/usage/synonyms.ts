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
  /** Each source word's analyzed terms (joined by a space) → the analyzed terms it adds. */
  private readonly map = new Map<string, { key: string[]; targets: string[] }>();

  constructor(synonyms: Synonyms, analyzer: Analyzer) {
    const link = (from: string, to: string) => {
      // A word may analyze to several terms ("k8s" → "8", "k8s"; a phrase): it matches when the query has them all.
      const key = [...new Set(analyzer.analyze(from))];
      if (!key.length) return;
      const entry = this.map.get(key.join(" ")) ?? { key, targets: [] };
      for (const t of analyzer.analyze(to)) if (!key.includes(t) && !entry.targets.includes(t)) entry.targets.push(t);
      if (entry.targets.length) this.map.set(key.join(" "), entry);
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
    const present = new Set(terms);
    const out = [...terms];
    const expansions: SynonymExpansion[] = [];
    for (const [term, { key, targets }] of this.map) {
      if (!key.every((k) => present.has(k))) continue;
      const added = targets.filter((t) => !seen.has(t));
      if (!added.length) continue;
      for (const t of added) seen.add(t);
      out.push(...added);
      expansions.push({ term, added });
    }
    return { terms: out, expansions };
  }
}
