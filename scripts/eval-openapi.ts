/**
 * How well imported OpenAPI operations are found, end to end, on the ToolAlpaca dev set (../shared/data/toolalpaca):
 * the 21 specs are imported (each under its own prefix, as the gateway would name them), the 214 labelled queries are
 * mapped onto the imported names through operations.json (spec, method, path), and bm25, semantic and hybrid are
 * evaluated on each description recipe next to the converter's catalog (catalog.json) in the same run.
 *
 *   node --import tsx scripts/eval-openapi.ts [--out DIR] [--json]
 *
 * With --out the default recipe's catalog and the mapped queries are written there, so the figures can be checked with
 * `toolsearch eval --catalog DIR/catalog.json --queries DIR/queries.jsonl --engine bm25,semantic,hybrid`.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { Embedder } from "../src/embeddings/embedder.js";
import { UseLiteProvider } from "../src/embeddings/use-lite.js";
import type { LabelledQuery } from "../src/eval/queries.js";
import { type EngineReport, evaluate, type Searcher } from "../src/eval/runner.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import { catalogFromOpenApi, type OpenApiTool } from "../src/openapi/catalog.js";
import { NameRegistry } from "../src/openapi/names.js";
import type { DescriptionRecipe } from "../src/openapi/text.js";

const DATA = new URL("../../shared/data/toolalpaca/", import.meta.url).pathname;
const ENGINES = ["bm25", "semantic", "hybrid"] as const;

/** The recipes compared; the first is the importer's default. */
const RECIPES: Record<string, DescriptionRecipe> = {
  "default (summary + description + method/path; category: tag, else API title)": {},
  "+ API title in description": { apiTitle: true },
  "+ 2xx response description": { responses: true },
  "+ API title + response": { apiTitle: true, responses: true },
  "no category fallback": { categoryFallback: "none" },
};

interface Operation {
  spec: string;
  method: string;
  path: string;
}

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

/**
 * operations.json, plus the operations the converter recovered from paths nested inside others (listed in stats.json
 * as "API::name (METHOD /path, nested under …)"), which operations.json leaves out.
 */
function readOperations(): Record<string, Operation> {
  const operations = JSON.parse(readFileSync(join(DATA, "operations.json"), "utf8")) as Record<string, Operation>;
  const stats = JSON.parse(readFileSync(join(DATA, "stats.json"), "utf8")) as { functions_recovered_from_documentation?: string[] };
  for (const line of stats.functions_recovered_from_documentation ?? []) {
    const match = /^(.+?)::(\S+) \((\w+) ([^\s,)]+)/.exec(line);
    if (!match) continue;
    const [, api, fn, method, path] = match;
    const sibling = Object.entries(operations).find(([name]) => name.startsWith(`${api!.replace(/[^a-zA-Z0-9_-]/g, "_")}__`));
    if (sibling) operations[`${sibling[0].split("__")[0]}__${fn}`] = { spec: sibling[1].spec, method: method!, path: path! };
  }
  return operations;
}

function readQueries(): LabelledQuery[] {
  return readFileSync(join(DATA, "queries.jsonl"), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as LabelledQuery);
}

/** Imports every spec with one recipe; returns the tools and a map from "spec METHOD path" to tool name. */
async function importAll(recipe: DescriptionRecipe): Promise<{ tools: OpenApiTool[]; byOperation: Map<string, string>; skipped: number }> {
  const names = new NameRegistry();
  const tools: OpenApiTool[] = [];
  const byOperation = new Map<string, string>();
  let skipped = 0;
  for (const file of readdirSync(join(DATA, "specs")).sort()) {
    const prefix = basename(file, ".json").replace(/[^a-zA-Z0-9_-]/g, "_");
    const catalog = await catalogFromOpenApi(join(DATA, "specs", file), { prefix, names, recipe });
    skipped += catalog.skipped.length;
    for (const tool of catalog.tools) {
      tools.push(tool);
      byOperation.set(`specs/${file} ${tool.openapi.method} ${tool.openapi.path}`, tool.name);
    }
  }
  return { tools, byOperation, skipped };
}

/** The labels rewritten to imported names; a query with a label that has no imported operation is counted and dropped. */
function mapQueries(queries: LabelledQuery[], operations: Record<string, Operation>, byOperation: Map<string, string>): { mapped: LabelledQuery[]; unmapped: string[] } {
  const mapped: LabelledQuery[] = [];
  const unmapped: string[] = [];
  for (const query of queries) {
    const relevant = query.relevant.map((label) => {
      const op = operations[label];
      // The importer reads a path without its leading "/" as if it had one; so does the mapping.
      return op ? byOperation.get(`${op.spec} ${op.method.toUpperCase()} ${op.path.startsWith("/") ? op.path : `/${op.path}`}`) : undefined;
    });
    if (relevant.some((r) => r === undefined)) unmapped.push(query.id);
    else mapped.push({ ...query, relevant: relevant as string[] });
  }
  return { mapped, unmapped };
}

async function engineSearchers(tools: unknown[], embedder: Embedder): Promise<Record<string, Searcher>> {
  const index = await ToolIndex.fromTools(tools, { embedder });
  await index.prepareEmbeddings();
  return Object.fromEntries(ENGINES.map((engine) => [engine, async (q: string) => (await index.search(q, { engine, limit: 10 })).map((h) => h.name)]));
}

const pct = (x: number) => (x * 100).toFixed(1);

async function main(): Promise<void> {
  const embedder = new Embedder(new UseLiteProvider(), { persistQueries: true, queryCacheSize: 100_000 });
  const operations = readOperations();
  const queries = readQueries();
  const rows: Array<{ catalog: string; engine: string; report: EngineReport; queries: number }> = [];
  const converter = JSON.parse(readFileSync(join(DATA, "catalog.json"), "utf8")) as unknown[];
  const converterReport = await evaluate(queries, await engineSearchers(converter, embedder));
  for (const engine of ENGINES) rows.push({ catalog: "converter's catalog.json", engine, report: converterReport.engines[engine]!, queries: converterReport.queries });
  let first = true;
  const notes: string[] = [];
  for (const [label, recipe] of Object.entries(RECIPES)) {
    const { tools, byOperation, skipped } = await importAll(recipe);
    const { mapped, unmapped } = mapQueries(queries, operations, byOperation);
    if (first) {
      notes.push(`imported ${tools.length} tools from 21 specs (${skipped} operations skipped); ${mapped.length} of ${queries.length} queries mapped, ${unmapped.length} not (${unmapped.join(", ") || "none"})`);
      const out = flag("--out");
      if (out) {
        mkdirSync(out, { recursive: true });
        writeFileSync(join(out, "catalog.json"), JSON.stringify(tools, null, 2));
        writeFileSync(join(out, "queries.jsonl"), mapped.map((q) => JSON.stringify(q)).join("\n") + "\n");
        notes.push(`wrote ${join(out, "catalog.json")} and ${join(out, "queries.jsonl")}`);
      }
      first = false;
    }
    const report = await evaluate(mapped, await engineSearchers(tools, embedder));
    for (const engine of ENGINES) rows.push({ catalog: `import: ${label}`, engine, report: report.engines[engine]!, queries: report.queries });
  }
  if (process.argv.includes("--json")) {
    process.stdout.write(`${JSON.stringify({ notes, rows }, null, 2)}\n`);
    return;
  }
  for (const note of notes) process.stdout.write(`${note}\n`);
  process.stdout.write("\n| catalog | engine | queries | R@1 | R@5 | R@10 | nDCG@10 | MRR@10 |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (const { catalog, engine, report, queries: n } of rows) {
    process.stdout.write(`| ${catalog} | ${engine} | ${n} | ${pct(report["recall@1"])} | ${pct(report["recall@5"])} | ${pct(report["recall@10"])} | ${pct(report["ndcg@10"])} | ${pct(report["mrr@10"])} |\n`);
  }
}

await main();
