/**
 * The data of a visual eval report (SPEC §12): metrics side by side, recall@k for k = 1…10, latency histograms, and
 * the queries an engine missed with what it returned instead and why the expected item ranked where it did. The
 * same JSON feeds the self-contained HTML file (`eval --report`) and the console's eval page.
 *
 * Sized for large query sets (MetaTool's 20,614): only missed queries are listed, item names are stored once in a
 * table and referred to by index, and latencies are kept as a histogram, not one number per query.
 */
import type { Explanation } from "../indexes/explain.js";
import { percentile, recallAt } from "./metrics.js";
import type { LabelledQuery } from "./queries.js";
import type { EngineReport, EngineRun, EvalReport } from "./runner.js";

/** Why an expected item ranked where it did for one engine and query (see `explain`). */
export type Explainer = (engine: string, query: string, id: string) => Promise<Explanation>;

/** How a report is built. */
export interface ReportOptions {
  title?: string;
  /** What was evaluated, for the header (file names). */
  source?: Record<string, string>;
  /** Explains expected items an engine missed; without it the report has no explanations. */
  explain?: Explainer;
  /**
   * Explanations per engine at most (default 20,000: every miss of MetaTool's 20,614 queries), so that a huge run
   * stays a file a browser opens quickly.
   */
  maxExplanations?: number;
  /** Called after each explanation, for a progress bar. */
  onExplained?: (done: number, total: number) => void;
}

/** Latency histogram of one engine: `counts[i]` queries took between `edges[i]` and `edges[i + 1]` ms. */
export interface LatencyHistogram {
  counts: number[];
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** A query some engine missed (an expected item outside its top 10). Items are indices into `ReportData.names`. */
export interface MissedQuery {
  id: string;
  query: string;
  relevant: number[];
  /** Each engine's top 5 (what it returned instead). */
  results: Record<string, number[]>;
  /** The engines that missed it. */
  missed: string[];
  /** Per engine that missed it: why each expected item outside its top 10 ranked where it did (at most 3). */
  explanations?: Record<string, Explanation[]>;
}

export interface ReportData {
  title: string;
  created: string;
  source: Record<string, string>;
  queries: number;
  engines: string[];
  metrics: Record<string, EngineReport>;
  /** Per engine, recall@1 … recall@10. */
  recall_at_k: Record<string, number[]>;
  /** Bin edges in ms (log-spaced, shared by every engine) and each engine's histogram. */
  latency: { edges: number[]; engines: Record<string, LatencyHistogram> };
  names: string[];
  missed: MissedQuery[];
  /** How many missed (query, engine) pairs were left unexplained by `maxExplanations`. */
  unexplained: number;
}

export const MAX_K = 10;
const LATENCY_BINS = 30;
const EXPLAINED_PER_QUERY = 3;
const OUTRANKED_KEPT = 5;
const SPANS_KEPT = 3;
const RESULTS_KEPT = 5;
/** Significant digits kept of scores in the report: the page shows three decimals. */
const DIGITS = 6;

/** Builds the report's data from an eval run; explanations are computed after the timed runs, never during them. */
export async function buildReportData(queries: LabelledQuery[], report: EvalReport, runs: Record<string, EngineRun>, options: ReportOptions = {}): Promise<ReportData> {
  const engines = Object.keys(report.engines);
  const names = new NameTable();
  const { missed, at } = missedQueries(queries, engines, runs, names);
  const unexplained = options.explain ? await addExplanations(missed, (m, e) => runs[e].ranked[at[m]], names, options) : 0;
  return {
    title: options.title ?? "toolsearch eval report",
    created: new Date().toISOString(),
    source: options.source ?? {},
    queries: queries.length,
    engines,
    metrics: report.engines,
    recall_at_k: Object.fromEntries(engines.map((e) => [e, recallCurve(queries, runs[e].ranked)])),
    latency: latencyHistograms(engines.map((e) => [e, runs[e].latencies])),
    names: names.list,
    missed,
    unexplained: options.explain ? unexplained : 0,
  };
}

class NameTable {
  readonly list: string[] = [];
  private readonly index = new Map<string, number>();
  of(name: string): number {
    let at = this.index.get(name);
    if (at === undefined) this.index.set(name, (at = this.list.push(name) - 1));
    return at;
  }
}

/** The missed queries, and for each its position in `queries`. */
function missedQueries(queries: LabelledQuery[], engines: string[], runs: Record<string, EngineRun>, names: NameTable): { missed: MissedQuery[]; at: number[] } {
  const out: MissedQuery[] = [];
  const at: number[] = [];
  queries.forEach((q, i) => {
    const relevant = new Set(q.relevant);
    const missedBy = engines.filter((e) => recallAt(MAX_K, runs[e].ranked[i], relevant) < 1);
    if (missedBy.length === 0) return;
    at.push(i);
    out.push({
      id: q.id,
      query: q.query,
      relevant: q.relevant.map((r) => names.of(r)),
      results: Object.fromEntries(engines.map((e) => [e, runs[e].ranked[i].slice(0, RESULTS_KEPT).map((r) => names.of(r))])),
      missed: missedBy,
    });
  });
  return { missed: out, at };
}

/** Explains missed expected items, up to the per-engine cap; returns how many (query, engine) pairs were left out. */
async function addExplanations(
  missed: MissedQuery[],
  topOf: (row: number, engine: string) => string[],
  names: NameTable,
  options: ReportOptions,
): Promise<number> {
  const cap = options.maxExplanations ?? 20_000;
  const used = new Map<string, number>();
  const total = missed.reduce((n, m) => n + m.missed.length, 0);
  let done = 0, skipped = 0;
  for (const [row, m] of missed.entries()) {
    for (const engine of m.missed) {
      done++;
      if ((used.get(engine) ?? 0) >= cap) {
        skipped++;
        continue;
      }
      used.set(engine, (used.get(engine) ?? 0) + 1);
      const top = new Set(topOf(row, engine).map((r) => names.of(r)));
      const expected = m.relevant.filter((r) => !top.has(r)).slice(0, EXPLAINED_PER_QUERY);
      const explained: Explanation[] = [];
      for (const r of expected) explained.push(compact(await options.explain!(engine, m.query, names.list[r]), m.query));
      (m.explanations ??= {})[engine] = explained;
      options.onExplained?.(done, total);
    }
  }
  return skipped;
}

/** An explanation trimmed for the report: the best few above it, the first few spans per field, rounded scores. */
function compact(why: Explanation, rowQuery: string): Explanation {
  const out: Explanation = { ...why, outranked_by: why.outranked_by.slice(0, OUTRANKED_KEPT) };
  if (why.fields) out.fields = why.fields.map((f) => ({ field: f.field, matches: f.matches.slice(0, SPANS_KEPT) }));
  // The row shows the query; only a query the engine saw differently (regex: a pattern of its words) is kept.
  if (why.query === rowQuery) delete (out as Partial<Explanation>).query;
  return JSON.parse(JSON.stringify(out, (_key, value) => (typeof value === "number" && !Number.isInteger(value) ? Number(value.toPrecision(DIGITS)) : value)));
}

function recallCurve(queries: LabelledQuery[], ranked: string[][]): number[] {
  const sums = new Array<number>(MAX_K).fill(0);
  queries.forEach((q, i) => {
    const relevant = new Set(q.relevant);
    for (let k = 1; k <= MAX_K; k++) sums[k - 1] += recallAt(k, ranked[i], relevant);
  });
  return sums.map((s) => s / Math.max(1, queries.length));
}

/** Log-spaced bins from the fastest to the slowest query of any engine, so engines compare on one axis. */
export function latencyHistograms(series: [string, number[]][]): ReportData["latency"] {
  // Loops, not Math.min(...xs): 20k queries × 4 engines is past what a spread call takes.
  let min = Infinity, max = 0;
  for (const [, ms] of series) for (const x of ms) if (x > 0) (min = Math.min(min, x)), (max = Math.max(max, x));
  const low = Math.max(1e-3, Number.isFinite(min) ? min : 0.01);
  const high = Math.max(low * 1.0001, max || 1);
  const step = Math.log(high / low) / LATENCY_BINS;
  const edges = Array.from({ length: LATENCY_BINS + 1 }, (_, i) => low * Math.exp(step * i));
  const engines: Record<string, LatencyHistogram> = {};
  for (const [engine, ms] of series) {
    const counts = new Array<number>(LATENCY_BINS).fill(0);
    for (const x of ms) counts[Math.min(LATENCY_BINS - 1, Math.max(0, Math.floor(Math.log(Math.max(x, low) / low) / step)))]++;
    engines[engine] = {
      counts,
      p50: percentile(ms, 0.5),
      p90: percentile(ms, 0.9),
      p99: percentile(ms, 0.99),
      max: ms.reduce((a, b) => Math.max(a, b), 0),
    };
  }
  return { edges, engines };
}
