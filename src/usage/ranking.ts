/**
 * What curation and use add to a ranking, as one input the tool index reads: synonyms widen the query's terms
 * before the engine runs; the learned signal is blended into the engine's ranking; pinned rules decide the head of
 * the final list. Engines stay unaware of all three.
 *
 * Blend: each candidate's lexical (or fused) score is placed on the engine's own scale for this query, from 0 at the
 * candidate depth (`HYBRID_CANDIDATES`; 0 when the list is shorter) to 1 for the top hit, and `weight × L(d)` (the
 * learned score, in [0, 1]) is added; the sum is mapped back so that scores keep their engine's units. Tools the learned signal knows for these words join the candidates even without a text
 * match: that is what history adds over the text.
 */
import type { Ranked } from "../engines/top-k.js";
import { compareRanked } from "../engines/top-k.js";
import { HYBRID_CANDIDATES } from "../embeddings/semantic-store.js";
import type { Analyzer } from "../text/analyzer.js";
import type { Rules, Synonyms } from "./curation.js";
import { type LearnedSignal, type LearnedTerm } from "./learned.js";
import { type PinnedPlace, PinnedRules } from "./rules.js";
import { type SynonymExpansion, SynonymExpander } from "./synonyms.js";

/** What `explain` reports of curation and use for one tool. */
export interface UsageExplanation {
  /** Query terms synonyms expanded, and what they added. */
  synonyms?: SynonymExpansion[];
  /** The rule that pinned the tool, and where. */
  pinned?: PinnedPlace;
  /** The learned part: what it added to the score, and each query word's share. */
  learned?: {
    /** What the learned part added to the score. */
    contribution: number;
    /**
     * How far the tool's own call record is trusted (0 for a tool never called): the rest of its part is what history
     * leaves undecided (1 − the best known tool's score, at most that score), so that a new tool is not pushed down
     * by tools that merely have a past.
     */
    confidence: number;
    /** Each query word that led to calls of this tool, with its share (times `confidence`) of the contribution. */
    terms: LearnedTerm[];
  };
}

/** Per-search switches. */
export interface UsageSearchOptions {
  /** Blend the learned signal (default true, when it has enough evidence). */
  learned?: boolean;
}

export class UsageRanking {
  private synonyms: SynonymExpander | undefined;
  private rules: PinnedRules | undefined;
  private learned: LearnedSignal | undefined;

  constructor(private readonly analyzer: Analyzer) {}

  setSynonyms(synonyms: Synonyms | undefined): void {
    this.synonyms = synonyms ? new SynonymExpander(synonyms, this.analyzer) : undefined;
  }

  setRules(rules: Rules | undefined): void {
    this.rules = rules && rules.rules.length ? new PinnedRules(rules) : undefined;
  }

  setLearned(learned: LearnedSignal | undefined): void {
    this.learned = learned;
  }

  /** The query's analyzed terms with synonyms added. */
  terms(query: string): { terms: string[]; expansions: SynonymExpansion[] } {
    const terms = this.analyzer.analyze(query);
    return this.synonyms ? this.synonyms.expand(terms) : { terms, expansions: [] };
  }

  /** Whether this search blends the learned signal. */
  learns(options: UsageSearchOptions): boolean {
    return options.learned !== false && this.learned?.active === true;
  }

  /**
   * The final ranking: the learned blend (when on) over `ranked`, then pinned rules, cut to `limit`. `ranked` should
   * hold more than `limit` candidates when the blend may reorder them.
   */
  rerank(query: string, terms: string[], ranked: Ranked[], limit: number, options: UsageSearchOptions, exists: (name: string) => boolean): Ranked[] {
    const blended = this.learns(options) ? this.blend(terms, ranked, exists) : ranked;
    return this.rules ? this.rules.apply(query, blended, limit, exists) : blended.slice(0, limit);
  }

  /** Every candidate in blended order. */
  private blend(terms: string[], ranked: Ranked[], exists: (name: string) => boolean): Ranked[] {
    const learned = this.learnedScores(terms, ranked, exists);
    if (learned.size === 0) return ranked;
    const { floor, spread } = scoreScale(ranked);
    const out = new Map<string, number>(ranked.map((h) => [h.id, (h.score - floor) / spread]));
    for (const [id, l] of learned) out.set(id, (out.get(id) ?? 0) + l);
    return [...out].map(([id, score]) => ({ id, score: floor + score * spread })).sort(compareRanked);
  }

  /**
   * The learned part of each candidate (already weighted), in units of the engine's spread (see `scoreScale`): the
   * signal's own score, pulled toward the part of the query history leaves open by how little the tool's record says
   * (`confidence`). Tools the signal knows for these words join the candidates.
   */
  private learnedScores(terms: string[], ranked: Ranked[], exists: (name: string) => boolean): Map<string, number> {
    const signal = this.learned!;
    const raw = signal.scores(terms);
    const out = new Map<string, number>();
    if (raw.size === 0) return out;
    // What history leaves undecided is open to tools it does not know: the share it does not give its leading tool,
    // up to that tool's score (never above it: a tool without a past does not lead for it). Not the share of the
    // query's words history never saw: a query in familiar words about a tool never called is not explained by
    // history when those words led to many tools, and a new tool must not fall below all of them.
    let best = 0;
    for (const [id, l] of raw) if (exists(id)) best = Math.max(best, l);
    const open = Math.min(best, 1 - best);
    const now = Date.now();
    const part = (id: string) => {
      const trust = signal.confidence(id, now);
      return signal.weight * (trust * (raw.get(id) ?? 0) + (1 - trust) * open);
    };
    for (const hit of ranked) out.set(hit.id, part(hit.id));
    for (const id of raw.keys()) if (exists(id) && !out.has(id)) out.set(id, part(id));
    return out;
  }

  /** What synonyms, rules and the learned signal did for `name` (score: its blended score, `top` the best lexical). */
  explain(query: string, name: string, ranked: Ranked[], options: UsageSearchOptions, exists: (name: string) => boolean): UsageExplanation {
    const { terms, expansions } = this.terms(query);
    const out: UsageExplanation = {};
    if (expansions.length) out.synonyms = expansions;
    const pinned = this.rules?.placeOf(query, name, exists);
    if (pinned) out.pinned = pinned;
    if (this.learns(options) && exists(name)) {
      const part = this.learnedScores(terms, ranked, exists).get(name);
      if (part) {
        const top = scoreScale(ranked).spread;
        const words = this.learned!.explain(terms, name);
        const confidence = this.learned!.confidence(name);
        out.learned = {
          contribution: part * top,
          confidence,
          terms: words.map((w) => ({ ...w, share: this.learned!.weight * top * confidence * w.share })),
        };
      }
    }
    return out;
  }
}

/**
 * The engine's own scale for this query: its candidates' scores run from `floor` (the last one) to `floor + spread`
 * (the best). The learned part is measured in spreads, not in fractions of the best score, because engines differ in
 * how flat their lists are: a fused `hybrid` list whose top 50 sit within a few percent of each other would let a
 * fixed fraction of its best score jump any candidate to the top, while the same fraction of a steep BM25 list moves
 * a tool a few places. In spreads, history weighs the same against every engine's own distinctions, and the blend
 * does not change when an engine's scores are scaled or shifted.
 */
function scoreScale(ranked: Ranked[]): { floor: number; spread: number } {
  const top = ranked[0]?.score ?? 0;
  // The score at the depth engines rank to when learning (so search and explain, which ranks every match, agree); a
  // shorter list holds every match, so the tools outside it score 0 and the scale starts there.
  const floor = ranked.length >= HYBRID_CANDIDATES ? ranked[HYBRID_CANDIDATES - 1]!.score : Math.min(0, ranked[ranked.length - 1]?.score ?? 0);
  const spread = top - floor;
  // One candidate, or all tied: no spread to measure against, so the best score is the unit (as for one hit).
  return spread > 0 ? { floor, spread } : { floor: 0, spread: top || 1 };
}
