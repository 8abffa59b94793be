/** `toolsearch eval (--catalog FILE | --docs PATH) --queries FILE [--engine E1,E2] [--max-queries N]` */
import { writeFileSync } from "node:fs";
import { basename } from "node:path";
import type { Command } from "commander";
import { ToolsearchError } from "../../errors.js";
import { ToolIndex } from "../../indexes/tool-index.js";
import { PLAIN_TOOL_BM25, TOOL_ENGINES, type ToolEngine } from "../../indexes/tool-index-options.js";
import { loadQueries } from "../../eval/queries.js";
import type { LabelledQuery } from "../../eval/queries.js";
import { buildReportData, type Explainer } from "../../eval/report-data.js";
import { renderReportHtml } from "../../eval/report-html.js";
import { type EngineRun, type EvalReport, evaluateRuns, type Searcher } from "../../eval/runner.js";
import { LEARNED_SUFFIX, PLAIN_ENGINE, setVariant, toolEvaluators } from "../../eval/searchers.js";
import { replayHistory } from "../../usage/replay.js";

/** The engines the learned signal is blended into. */
const LEARNING_ENGINES = ["bm25", "hybrid"];
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
  report?: string;
  history?: string;
  json?: boolean;
}

/** Builds one searcher per engine name for the item set the flags name. */
export type SearcherFactory = (engines: string[], flags: EvalFlags) => Promise<{ known: (id: string) => boolean; searchers: Record<string, Searcher>; explain: Explainer }>;


/** Tools: every engine ranks the top 10; the regex engine gets a pattern derived from the query's words. */
export const toolSearchers: SearcherFactory = async (engines, flags) => {
  for (const engine of engines) {
    if (engine !== PLAIN_ENGINE && !TOOL_ENGINES.includes(engine as ToolEngine) && !setVariant(engine)) {
      throw new UsageError(`unknown engine ${JSON.stringify(engine)} for tools: use ${[...TOOL_ENGINES, PLAIN_ENGINE].join(", ")}, or bm25 or hybrid with +sets, +clauses, +groups, +nosets or +noranker`);
    }
  }
  const embedder = needsEmbeddings(...engines.map((e) => setVariant(e)?.engine ?? e)) ? await embedderFromFlags(flags, true) : undefined;
  const { index, save } = await openCatalog(flags.catalog!, { embedder }, flags.cache);
  if (embedder) await prepareWithProgress(index, "embedding tools");
  save();
  if (flags.history) {
    const history = loadQueries(flags.history, (id) => index.get(id) !== undefined);
    index.setLearned(replayHistory(history, index.analyzer));
    process.stderr.write(`toolsearch: replayed ${history.length} labelled queries of ${flags.history} as history\n`);
    engines = engines.flatMap((e) => (LEARNING_ENGINES.includes(e) ? [e, e + LEARNED_SUFFIX] : [e]));
  }
  const { searchers, explain } = toolEvaluators(index, engines);
  return { known: (id) => index.get(id) !== undefined, searchers, explain };
};

export function registerEval(program: Command): void {
  const command = program
    .command("eval")
    .description("measure retrieval quality and speed on labelled queries, engines side by side")
    .option("-c, --catalog <file>", "tool catalog")
    .option("-d, --docs <path>", "documents (JSONL or a folder of Markdown)")
    .requiredOption("-q, --queries <file>", "labelled queries (JSONL: {id, query, relevant})")
    .option("-e, --engine <list>", `comma-separated engines (and ${PLAIN_ENGINE}, the plain BM25 reference)`, "bm25")
    .option("-n, --max-queries <n>", "evaluate only the first N queries", parseInteger("--max-queries", 1, 10_000_000))
    .option("--history <file>", "labelled queries (JSONL) replayed as past searches and calls: tool engines learn from them, and bm25/hybrid are measured with (+learned) and without")
    .option("--report <file.html>", "also write a self-contained HTML report: charts, and the missed queries with explanations")
    .option("--json", "machine-readable output");
  addEmbedderOptions(command)
    .action(async (flags: EvalFlags) => {
      if (!flags.catalog === !flags.docs) throw new UsageError("eval takes exactly one of --catalog and --docs");
      if (flags.history && !flags.catalog) throw new UsageError("--history needs --catalog (documents do not learn from use)");
      const engines = [...new Set(flags.engine.split(",").map((e) => e.trim()).filter(Boolean))];
      // The documents side is loaded only for --docs (and it imports this module's types, so not at the top).
      const factory = flags.catalog ? toolSearchers : (await import("./docs-eval.js")).docsSearchers;
      const { known, searchers, explain } = await factory(engines, flags);
      const queries = loadQueries(flags.queries, known).slice(0, flags.maxQueries);
      const progress = createProgress();
      const { report, runs } = await evaluateRuns(queries, searchers, (engine, done, total) => {
        if (done === 1) progress.start(`eval ${engine}`, total);
        progress.update(done);
      });
      progress.stop();
      if (flags.report) await writeReport(flags.report, queries, report, runs, explain, flags);
      if (flags.json) return printJson(report);
      printLines(formatReport(report));
    });
}

async function writeReport(path: string, queries: LabelledQuery[], report: EvalReport, runs: Record<string, EngineRun>, explain: Explainer, flags: EvalFlags): Promise<void> {
  const progress = createProgress();
  const source: Record<string, string> = { [flags.catalog ? "catalog" : "docs"]: basename((flags.catalog ?? flags.docs)!), queries: basename(flags.queries) };
  const data = await buildReportData(queries, report, runs, {
    source,
    explain,
    onExplained: (done, total) => {
      if (done === 1) progress.start("explaining misses", total);
      progress.update(done);
    },
  });
  progress.stop();
  writeText(path, await renderReportHtml(data));
  process.stderr.write(`toolsearch: report written to ${path} (${data.missed.length} missed queries)\n`);
}

function formatReport(report: EvalReport): string[] {
  const pct = (x: number) => (x * 100).toFixed(2);
  const rows = Object.entries(report.engines).map(([name, r]) => [
    name, pct(r["recall@1"]), pct(r["recall@5"]), pct(r["recall@10"]), pct(r["ndcg@10"]), pct(r["mrr@10"]),
    r.p50_ms.toFixed(2), r.p99_ms.toFixed(2),
  ]);
  return [`${report.queries} queries (metrics in %)`, ...table(["engine", "R@1", "R@5", "R@10", "nDCG@10", "MRR@10", "p50 ms", "p99 ms"], rows)];
}

/** Writes a file, or fails as a user error naming it. */
function writeText(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw new ToolsearchError("file_unwritable", `${path}: cannot write the report (${(error as Error).message})`);
  }
}
