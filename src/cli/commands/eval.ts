/** `toolsearch eval (--catalog FILE | --docs PATH) --queries FILE [--engine E1,E2] [--max-queries N]` */
import type { Command } from "commander";
import { ToolIndex } from "../../indexes/tool-index.js";
import { PLAIN_TOOL_BM25, TOOL_ENGINES, type ToolEngine } from "../../indexes/tool-index-options.js";
import { loadQueries } from "../../eval/queries.js";
import { patternFromQuery } from "../../eval/regex-pattern.js";
import { type EvalReport, evaluate, type Searcher } from "../../eval/runner.js";
import { addEmbedderOptions, type EmbedderFlags, embedderFromFlags, needsEmbeddings, prepareWithProgress } from "../embedder-flags.js";
import { openCatalog } from "../index-cache.js";
import { parseInteger, printJson, printLines, table, UsageError } from "../output.js";
import { createProgress } from "../progress.js";

interface EvalFlags extends EmbedderFlags {
  catalog?: string;
  docs?: string;
  queries: string;
  engine: string;
  maxQueries?: number;
  json?: boolean;
}

/** Builds one searcher per engine name for the item set the flags name. */
export type SearcherFactory = (engines: string[], flags: EvalFlags) => Promise<{ known: (id: string) => boolean; searchers: Record<string, Searcher> }>;

/**
 * The reference engine `eval` adds to the index's own: plain BM25 (one bag of words, k1 0.9, b 0.4, exact terms) on
 * the same analyzer and engine, so a report shows what the tuned defaults gain over it.
 */
export const PLAIN_ENGINE = "bm25-plain";

/** Tools: every engine ranks the top 10; the regex engine gets a pattern derived from the query's words. */
export const toolSearchers: SearcherFactory = async (engines, flags) => {
  for (const engine of engines) {
    if (engine !== PLAIN_ENGINE && !TOOL_ENGINES.includes(engine as ToolEngine)) {
      throw new UsageError(`unknown engine ${JSON.stringify(engine)} for tools: use ${[...TOOL_ENGINES, PLAIN_ENGINE].join(", ")}`);
    }
  }
  const embedder = needsEmbeddings(...engines) ? await embedderFromFlags(flags, true) : undefined;
  const { index, save } = await openCatalog(flags.catalog!, { embedder }, flags.cache);
  if (embedder) await prepareWithProgress(index, "embedding tools");
  save();
  const plain = engines.includes(PLAIN_ENGINE) ? new ToolIndex(index.list(), { bm25: PLAIN_TOOL_BM25 }) : undefined;
  const searchers: Record<string, Searcher> = {};
  for (const engine of engines) {
    searchers[engine] = engine === PLAIN_ENGINE
      ? (q) => plain!.searchSync(q, { limit: 10 }).map((h) => h.name)
      : engine === "regex"
        ? (q) => index.searchSync(patternFromQuery(q), { engine: "regex", limit: 10 }).map((h) => h.name)
        : async (q) => (await index.search(q, { engine: engine as ToolEngine, limit: 10 })).map((h) => h.name);
  }
  return { known: (id) => index.get(id) !== undefined, searchers };
};

/** Factories for `--docs`; the documents module registers itself here. */
export const evalTargets: { docs?: SearcherFactory } = {};

export function registerEval(program: Command): void {
  const command = program
    .command("eval")
    .description("measure retrieval quality and speed on labelled queries, engines side by side")
    .option("-c, --catalog <file>", "tool catalog")
    .option("-d, --docs <path>", "documents (JSONL or a folder of Markdown)")
    .requiredOption("-q, --queries <file>", "labelled queries (JSONL: {id, query, relevant})")
    .option("-e, --engine <list>", `comma-separated engines (and ${PLAIN_ENGINE}, the plain BM25 reference)`, "bm25")
    .option("-n, --max-queries <n>", "evaluate only the first N queries", parseInteger("--max-queries", 1, 10_000_000))
    .option("--json", "machine-readable output");
  addEmbedderOptions(command)
    .action(async (flags: EvalFlags) => {
      if (!flags.catalog === !flags.docs) throw new UsageError("eval takes exactly one of --catalog and --docs");
      const engines = [...new Set(flags.engine.split(",").map((e) => e.trim()).filter(Boolean))];
      const factory = flags.catalog ? toolSearchers : evalTargets.docs;
      if (!factory) throw new UsageError("--docs evaluation is not available in this build");
      const { known, searchers } = await factory(engines, flags);
      const queries = loadQueries(flags.queries, known).slice(0, flags.maxQueries);
      const progress = createProgress();
      const report = await evaluate(queries, searchers, (engine, done, total) => {
        if (done === 1) progress.start(`eval ${engine}`, total);
        progress.update(done);
      });
      progress.stop();
      if (flags.json) return printJson(report);
      printLines(formatReport(report));
    });
}

function formatReport(report: EvalReport): string[] {
  const pct = (x: number) => (x * 100).toFixed(2);
  const rows = Object.entries(report.engines).map(([name, r]) => [
    name, pct(r["recall@1"]), pct(r["recall@5"]), pct(r["recall@10"]), pct(r["ndcg@10"]), pct(r["mrr@10"]),
    r.p50_ms.toFixed(2), r.p99_ms.toFixed(2),
  ]);
  return [`${report.queries} queries (metrics in %)`, ...table(["engine", "R@1", "R@5", "R@10", "nDCG@10", "MRR@10", "p50 ms", "p99 ms"], rows)];
}
