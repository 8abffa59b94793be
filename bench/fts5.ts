/**
 * Cold build against SQLite FTS5 (issue 26): the 12.2k-tool scale catalog indexed by toolsearch's `ToolIndex` and by a
 * plain better-sqlite3 FTS5 table (name, description, params; porter tokenizer; bm25 weights 3/1/1), each in a fresh
 * process, alternating, so both see the same machine. Both start from the same parsed, validated tools; the build is
 * what follows (for FTS5: create the table and insert every tool in one transaction). Each process then times every
 * scale query once (limit 10) for the search p50.
 *
 *   node --import tsx bench/fts5.ts [--data ../shared/data] [--rounds 5] [--json]
 */
import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { loadCatalogFile } from "../src/catalog/load.js";
import type { Tool } from "../src/catalog/tool.js";
import { table } from "../src/cli/output.js";
import { percentile } from "../src/eval/metrics.js";
import { loadQueries } from "../src/eval/queries.js";
import { ToolIndex } from "../src/indexes/tool-index.js";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    rounds: { type: "string", default: "5" },
    child: { type: "string" },
    json: { type: "boolean", default: false },
  },
});

/** What one fresh process measures. */
interface Run { build_ms: number; build_cpu_ms: number; p50_ms: number }
type Search = (query: string) => string[];

/** The anchor: the smallest FTS5 index a user would write for a tool catalog. */
function buildFts5(tools: Tool[]): Search {
  const db = new Database(":memory:");
  db.exec("CREATE VIRTUAL TABLE tools USING fts5(name, description, params, tokenize = 'porter unicode61')");
  const insert = db.prepare("INSERT INTO tools (name, description, params) VALUES (?, ?, ?)");
  const params = (tool: Tool) => Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { description?: unknown }>)
    .map(([name, p]) => `${name} ${typeof p?.description === "string" ? p.description : ""}`).join(" ");
  db.transaction(() => { for (const t of tools) insert.run(t.name.replace(/[_\-.]+/g, " "), t.description, params(t)); })();
  const search = db.prepare("SELECT name FROM tools WHERE tools MATCH ? ORDER BY bm25(tools, 3, 1, 1) LIMIT 10");
  // Query words as OR'ed quoted strings: FTS5 syntax characters in a query are then plain text.
  const match = (q: string) => (q.match(/[\p{L}\p{N}]+/gu) ?? []).map((w) => `"${w}"`).join(" OR ");
  return (query) => { const m = match(query); return m ? search.all(m).map((r) => (r as { name: string }).name) : []; };
}

function buildOurs(tools: Tool[]): Search {
  const index = new ToolIndex(tools);
  return (query) => index.searchSync(query, { limit: 10 }).map((h) => h.name);
}

function child(kind: string): Run {
  const catalog = join(values.data!, "scale", "catalog.json");
  const tools = loadCatalogFile(catalog);
  const known = new Set(tools.map((t) => t.name));
  const queries = loadQueries(join(values.data!, "scale", "queries.jsonl"), (l) => known.has(l)).map((q) => q.query);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const search = kind === "fts5" ? buildFts5(tools) : buildOurs(tools);
  const build_ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const times = queries.map((q) => {
    const t = performance.now();
    search(q);
    return performance.now() - t;
  });
  return { build_ms, build_cpu_ms: (used.user + used.system) / 1000, p50_ms: percentile(times, 0.5) };
}

if (values.child) {
  process.stdout.write(JSON.stringify(child(values.child)));
} else {
  const self = fileURLToPath(import.meta.url);
  const spawn = (kind: string): Run => JSON.parse(execFileSync(process.execPath, [...process.execArgv, self, "--data", values.data!, "--child", kind], { encoding: "utf8" }));
  const before = loadavg();
  const runs: Record<"ours" | "fts5", Run[]> = { ours: [], fts5: [] };
  for (let r = 0; r < Number(values.rounds); r++) {
    runs.fts5.push(spawn("fts5"));
    runs.ours.push(spawn("ours"));
    if (!values.json) process.stderr.write(`round ${r + 1}/${values.rounds}: ours ${runs.ours[r].build_ms.toFixed(0)} ms, fts5 ${runs.fts5[r].build_ms.toFixed(0)} ms\n`);
  }
  const median = (rows: Run[], key: keyof Run) => percentile(rows.map((x) => x[key]), 0.5);
  const ratio = (key: keyof Run) => percentile(runs.ours.map((x, i) => x[key] / runs.fts5[i][key]), 0.5);
  const load = { before: before.map((x) => Number(x.toFixed(2))), after: loadavg().map((x) => Number(x.toFixed(2))) };
  const result = {
    rounds: Number(values.rounds), load,
    ours: { build_ms: median(runs.ours, "build_ms"), build_cpu_ms: median(runs.ours, "build_cpu_ms"), p50_ms: median(runs.ours, "p50_ms") },
    fts5: { build_ms: median(runs.fts5, "build_ms"), build_cpu_ms: median(runs.fts5, "build_cpu_ms"), p50_ms: median(runs.fts5, "p50_ms") },
    ratios: { build: ratio("build_ms"), build_cpu: ratio("build_cpu_ms"), p50: ratio("p50_ms") },
  };
  if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    console.log(`${result.rounds} rounds, fresh process each (medians); load average ${load.before.join(" ")} before, ${load.after.join(" ")} after`);
    const row = (name: string, m: Run) => [name, m.build_ms.toFixed(0), m.build_cpu_ms.toFixed(0), m.p50_ms.toFixed(3)];
    console.log(table(["index", "cold build ms", "build CPU ms", "search p50 ms"], [row("toolsearch", result.ours), row("FTS5", result.fts5)]).join("\n"));
    console.log(`toolsearch ÷ FTS5 (median of per-round ratios): build ${result.ratios.build.toFixed(2)} (target ≤ 3, issue 37), build CPU ${result.ratios.build_cpu.toFixed(2)}, p50 ${result.ratios.p50.toFixed(2)}`);
  }
}
