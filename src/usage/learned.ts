/**
 * The learned signal: which query words led agents to call which tool, counted from usage events and blended into
 * `bm25` and `hybrid` rankings as one more input. The counts are a cache of the events in the store (rebuilt from
 * them on start), so every replica computes the same signal.
 *
 * Scoring, for a query's terms T and a tool d:
 *   L(d) = Σ_t w(t) · c(t,d) / (n(t) + μ)  /  Σ_t w(t)
 * where c(t,d) is the (decayed) number of calls of d after a search containing t, n(t) the calls after searches
 * containing t, μ a pseudo-count, and w(t) how specific t is: log(1 + (tools called + 1) / (tools t led to + 1)), so a
 * word that led to many different tools ("find", "help") says little, and a word never seen weighs the most.
 * - Smoothing: μ shrinks what a word seen once or twice says, so a little evidence never outweighs the text match.
 * - Popular tools do not win every query: c/n is per word, so a tool gains only on the words that led to it, and words
 *   common to all searches weigh little.
 * - New or rare tools are not buried: query words never seen in history count in the denominator with their full
 *   weight and add nothing, so a query about something history never saw gets a weak learned part and the lexical
 *   ranking decides.
 * - Decay: each event counts 2^(−age / half-life).
 *
 * @example
 * ```ts
 * const learned = new LearnedSignal(createAnalyzer());
 * learned.add({ query: "refund an order", tool: "process_refund", at: Date.now() });
 * learned.scores(["refund", "order"]).get("process_refund"); // > 0
 * ```
 */
import type { Analyzer } from "../text/analyzer.js";

/** How the learned signal is counted and blended. */
export interface LearnedOptions {
  /** Search→call pairs a collection needs before the signal is used (default 30). */
  minEvidence?: number;
  /** Age at which an event counts half (default 30 days). */
  halfLifeDays?: number;
  /** Pseudo-count that shrinks rare evidence (default 2). */
  smoothing?: number;
  /** Weight of the learned part against the engine's score spread for the query (best hit 1, candidate depth 0; default 1). */
  weight?: number;
  /**
   * Calls at which a tool's own record counts half (default 10): below it, a tool is given the benefit of the doubt
   * (see `confidence`), so a new tool is not pushed down by tools that merely have a past.
   */
  toolSmoothing?: number;
}

/** One search followed by a call of `tool`: the unit of evidence. */
export interface UsagePair {
  query: string;
  tool: string;
  /** Milliseconds since the epoch. */
  at: number;
}

/** One query word's part in a tool's learned score. */
export interface LearnedTerm {
  term: string;
  /** Decayed calls of the tool after searches with this word. */
  calls: number;
  /** Its part of the learned score (the parts add up to it). */
  share: number;
}

const DAY_MS = 86_400_000;

export const DEFAULT_LEARNED: Required<LearnedOptions> = { minEvidence: 30, halfLifeDays: 30, smoothing: 2, weight: 1, toolSmoothing: 10 };

export class LearnedSignal {
  private readonly options: Required<LearnedOptions>;
  /** term → tool → decayed calls, all relative to `epoch`. */
  private readonly calls = new Map<string, Map<string, number>>();
  /** term → decayed calls after searches with it. */
  private readonly termTotals = new Map<string, number>();
  /** tool → decayed calls after any search. */
  private readonly toolTotals = new Map<string, number>();
  private pairs = 0;
  /** Counts are stored as weights 2^((at − epoch)/half-life) and scaled to "now" when read, so adding is O(terms). */
  private epoch: number | undefined;

  constructor(private readonly analyzer: Analyzer, options: LearnedOptions = {}) {
    this.options = { ...DEFAULT_LEARNED, ...options };
  }

  /** Search→call pairs counted so far. */
  get evidence(): number {
    return this.pairs;
  }

  /** Whether there is enough evidence to blend the signal in. */
  get active(): boolean {
    return this.pairs >= this.options.minEvidence;
  }

  /** The blend weight. */
  get weight(): number {
    return this.options.weight;
  }

  /** Counts one search→call pair (several calls after one search are several pairs of one search). */
  add(pair: UsagePair): void {
    this.addSearch(pair.query, [pair.tool], pair.at);
  }

  /** Counts one search and the tools called after it. */
  addSearch(query: string, tools: string[], at: number): void {
    if (tools.length === 0) return;
    this.epoch ??= at;
    const weight = 2 ** ((at - this.epoch) / (this.options.halfLifeDays * DAY_MS));
    const terms = new Set(this.analyzer.analyze(query));
    for (const tool of tools) this.toolTotals.set(tool, (this.toolTotals.get(tool) ?? 0) + weight);
    this.pairs += tools.length;
    for (const term of terms) {
      this.termTotals.set(term, (this.termTotals.get(term) ?? 0) + weight * tools.length);
      let byTool = this.calls.get(term);
      if (!byTool) this.calls.set(term, (byTool = new Map()));
      for (const tool of tools) byTool.set(tool, (byTool.get(tool) ?? 0) + weight);
    }
  }

  /** Learned score per tool for analyzed query terms, each in [0, 1]; tools without evidence are left out. */
  scores(terms: string[], now = Date.now()): Map<string, number> {
    const out = new Map<string, number>();
    const { weights, total, scale } = this.termWeights(terms, now);
    if (total === 0) return out;
    for (const [term, w] of weights) {
      const byTool = this.calls.get(term);
      if (!byTool) continue;
      const denominator = this.termTotals.get(term)! * scale + this.options.smoothing;
      for (const [tool, c] of byTool) out.set(tool, (out.get(tool) ?? 0) + (w * c * scale) / denominator / total);
    }
    return out;
  }

  /**
   * How far a tool's own record can be trusted, in [0, 1): calls / (calls + toolSmoothing), decayed. A tool called
   * often but never after these words has earned its low learned score; a tool never called has not, and the blend
   * gives it what history leaves undecided instead (see `UsageRanking`).
   */
  confidence(tool: string, now = Date.now()): number {
    const calls = (this.toolTotals.get(tool) ?? 0) * this.scale(now);
    return calls / (calls + this.options.toolSmoothing);
  }

  /** Each query word's part in `tool`'s learned score (words that never led to it are left out). */
  explain(terms: string[], tool: string, now = Date.now()): LearnedTerm[] {
    const { weights, total, scale } = this.termWeights(terms, now);
    const out: LearnedTerm[] = [];
    for (const [term, w] of weights) {
      const c = this.calls.get(term)?.get(tool);
      if (!c || total === 0) continue;
      out.push({ term, calls: c * scale, share: (w * c * scale) / (this.termTotals.get(term)! * scale + this.options.smoothing) / total });
    }
    return out;
  }

  /** How specific each distinct query term is (see the module's comment), and their sum. */
  private termWeights(terms: string[], now: number): { weights: Map<string, number>; total: number; scale: number } {
    const weights = new Map<string, number>();
    let total = 0;
    for (const term of new Set(terms)) {
      const w = Math.log(1 + (this.toolTotals.size + 1) / ((this.calls.get(term)?.size ?? 0) + 1));
      weights.set(term, w);
      total += w;
    }
    return { weights, total, scale: this.scale(now) };
  }

  /** The factor that turns stored weights into weights decayed to `now`. */
  private scale(now: number): number {
    return this.epoch === undefined ? 1 : 2 ** (-(now - this.epoch) / (this.options.halfLifeDays * DAY_MS));
  }
}
