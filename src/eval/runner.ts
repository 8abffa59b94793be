/**
 * Runs labelled queries through one or more searchers and reports SPEC §5 metrics side by side. Searchers are plain
 * functions from a query to ranked ids, so tools, documents and peers in benchmarks are evaluated the same way.
 */
import { ndcgAt, percentile, recallAt, reciprocalRankAt } from "./metrics.js";
import type { LabelledQuery } from "./queries.js";

/** Ranked ids for a query (at least the top 10). */
export type Searcher = (query: string) => string[] | Promise<string[]>;

/** SPEC §5 figures for one engine. */
export interface EngineReport {
  "recall@1": number;
  "recall@5": number;
  "recall@10": number;
  "ndcg@10": number;
  "mrr@10": number;
  p50_ms: number;
  p99_ms: number;
}

export interface EvalReport {
  queries: number;
  engines: Record<string, EngineReport>;
}

/** Called after each query of each engine; for progress bars. */
export type EvalProgress = (engine: string, done: number, total: number) => void;

const WARM_UP_QUERIES = 10;

/** What one engine returned for every query, in query order (for reports that show more than the averages). */
export interface EngineRun {
  /** The ranked ids (top 10) per query. */
  ranked: string[][];
  /** Milliseconds per query. */
  latencies: number[];
}

/** Evaluates one searcher: a warm-up pass over the first queries, then one timed call per query. */
export async function evaluateSearcher(queries: LabelledQuery[], search: Searcher, onQuery?: (done: number) => void, run?: EngineRun): Promise<EngineReport> {
  for (const q of queries.slice(0, WARM_UP_QUERIES)) await search(q.query);
  const sums = { r1: 0, r5: 0, r10: 0, ndcg: 0, mrr: 0 };
  const latencies: number[] = [];
  for (const [i, q] of queries.entries()) {
    const started = performance.now();
    const ranked = await search(q.query);
    latencies.push(performance.now() - started);
    run?.ranked.push(ranked.slice(0, 10));
    const relevant = new Set(q.relevant);
    sums.r1 += recallAt(1, ranked, relevant);
    sums.r5 += recallAt(5, ranked, relevant);
    sums.r10 += recallAt(10, ranked, relevant);
    sums.ndcg += ndcgAt(10, ranked, relevant);
    sums.mrr += reciprocalRankAt(10, ranked, relevant);
    onQuery?.(i + 1);
  }
  const n = Math.max(1, queries.length);
  run?.latencies.push(...latencies);
  return {
    "recall@1": sums.r1 / n,
    "recall@5": sums.r5 / n,
    "recall@10": sums.r10 / n,
    "ndcg@10": sums.ndcg / n,
    "mrr@10": sums.mrr / n,
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
  };
}

/** Evaluates every searcher on the same queries, one after the other. */
export async function evaluate(queries: LabelledQuery[], searchers: Record<string, Searcher>, progress?: EvalProgress): Promise<EvalReport> {
  return (await evaluateRuns(queries, searchers, progress)).report;
}

/** `evaluate`, also keeping what each engine returned and how long each query took. */
export async function evaluateRuns(
  queries: LabelledQuery[],
  searchers: Record<string, Searcher>,
  progress?: EvalProgress,
): Promise<{ report: EvalReport; runs: Record<string, EngineRun> }> {
  const engines: Record<string, EngineReport> = {};
  const runs: Record<string, EngineRun> = {};
  for (const [name, search] of Object.entries(searchers)) {
    runs[name] = { ranked: [], latencies: [] };
    engines[name] = await evaluateSearcher(queries, search, (done) => progress?.(name, done, queries.length), runs[name]);
  }
  return { report: { queries: queries.length, engines }, runs };
}
