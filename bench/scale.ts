/**
 * Scale benchmark (SPEC §8): the 12.2k-tool scale catalog and a deterministic 100k-tool catalog
 * (`scripts/make-large-catalog.ts`, written to .bench-out/ when missing), built and searched in one process with the
 * same queries, so the ratios between the two hold on a noisy machine.
 *
 *   npm run bench:scale               # table with the ratios and their targets
 *   npm run bench:scale -- --json     # {"tools","queries","rounds","load","small","large","ratios","per_round"}
 *
 * Options: --data DIR (default ../shared/data), --large FILE, --tools N (size of the large catalog, default 100000),
 * --queries N|all (default all 765 StableToolBench queries of the scale set), --rounds N (default 3).
 *
 * Each round builds and searches both catalogs, small then large, and takes their ratios; the verdict is the median
 * of the rounds' ratios, so one round slowed by another job on a shared machine does not decide it. One unmeasured
 * build of the small catalog first warms the JIT, which would otherwise be charged to the first small build only.
 */
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadCatalogFile } from "../src/catalog/load.js";
import { table } from "../src/cli/output.js";
import { loadQueries, type LabelledQuery } from "../src/eval/queries.js";
import { percentile } from "../src/eval/metrics.js";
import { evaluateSearcher } from "../src/eval/runner.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import { LARGE_CATALOG_PATH, writeLargeCatalog } from "../scripts/make-large-catalog.js";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    large: { type: "string", default: LARGE_CATALOG_PATH },
    tools: { type: "string", default: "100000" },
    queries: { type: "string", default: "all" },
    rounds: { type: "string", default: "3" },
    json: { type: "boolean", default: false },
  },
});

const say = (line: string) => values.json || process.stderr.write(`${line}\n`);
const gc = (globalThis as { gc?: () => void }).gc;
function heapMb(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

interface Measured {
  tools: number;
  build_ms: number;
  build_cpu_ms: number;
  build_us_per_tool: number;
  p50_ms: number;
  p99_ms: number;
  /** CPU time of one search at the median: steadier than wall time on a shared machine. */
  cpu_p50_ms: number;
  heap_mb: number;
  "ndcg@10": number;
  snapshot_ms: number;
  snapshot_mb: number;
  snapshot_load_ms: number;
}

async function measure(path: string, queries: LabelledQuery[], round: string): Promise<Measured> {
  say(`${round} ${path}: loading…`);
  const before = heapMb();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let index: ToolIndex | undefined = new ToolIndex(loadCatalogFile(path));
  const build_ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const heap_mb = heapMb() - before;
  const tools = index.size;
  say(`${round} ${path}: ${tools} tools built in ${build_ms.toFixed(0)} ms; ${queries.length} queries…`);
  const report = await evaluateSearcher(queries, (q) => index!.searchSync(q, { limit: 10 }).map((h) => h.name));
  const cpu_p50_ms = percentile(queries.map((q) => {
    const before = process.cpuUsage();
    index!.searchSync(q.query, { limit: 10 });
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  }), 0.5);
  let t = performance.now();
  const snapshot = index.snapshot();
  const snapshot_ms = performance.now() - t;
  index = undefined;
  heapMb();
  t = performance.now();
  const loaded = ToolIndex.fromSnapshot(snapshot);
  const snapshot_load_ms = performance.now() - t;
  // The loaded index must answer as the built one did.
  const again = await evaluateSearcher(queries, (q) => loaded.searchSync(q, { limit: 10 }).map((h) => h.name));
  if (Math.abs(again["ndcg@10"] - report["ndcg@10"]) > 1e-12) throw new Error(`snapshot of ${path} ranks differently`);
  return {
    tools, build_ms, build_cpu_ms: (cpu.user + cpu.system) / 1000, build_us_per_tool: (build_ms * 1000) / tools,
    p50_ms: report.p50_ms, p99_ms: report.p99_ms, cpu_p50_ms, heap_mb, "ndcg@10": report["ndcg@10"],
    snapshot_ms, snapshot_mb: snapshot.length / 2 ** 20, snapshot_load_ms,
  };
}

const smallPath = join(values.data!, "scale", "catalog.json");
if (!existsSync(values.large!)) {
  say(`writing ${values.large} (${values.tools} tools)…`);
  writeLargeCatalog(values.data!, Number(values.tools), values.large!);
}
const known = new Set(loadCatalogFile(smallPath).map((t) => t.name));
const all = loadQueries(join(values.data!, "scale", "queries.jsonl"), (l) => known.has(l));
const queries = values.queries === "all" ? all : all.filter((_, i) => i % Math.max(1, Math.floor(all.length / Number(values.queries))) === 0);

type Ratios = ReturnType<typeof ratiosOf>;
function ratiosOf(small: Measured, large: Measured) {
  return {
    build_per_tool: large.build_us_per_tool / small.build_us_per_tool,
    build_cpu_per_tool: (large.build_cpu_ms / large.tools) / (small.build_cpu_ms / small.tools),
    p50: large.p50_ms / small.p50_ms,
    cpu_p50: large.cpu_p50_ms / small.cpu_p50_ms,
    snapshot_load_over_build_small: small.snapshot_load_ms / small.build_ms,
    snapshot_load_over_build_large: large.snapshot_load_ms / large.build_ms,
  };
}

/** The median of each numeric field over the rounds (heap: the largest, since it is a limit). */
function medianOf<T extends object>(rows: T[]): T {
  const out: Record<string, number> = {};
  for (const key of Object.keys(rows[0])) {
    const values = rows.map((r) => (r as Record<string, number>)[key]);
    out[key] = key === "heap_mb" ? Math.max(...values) : percentile(values, 0.5);
  }
  return out as T;
}

const rounds = Math.max(1, Number(values.rounds));
const loadBefore = loadavg();
new ToolIndex(loadCatalogFile(smallPath)); // JIT warm-up, unmeasured
const runs: { small: Measured; large: Measured; ratios: Ratios }[] = [];
for (let r = 1; r <= rounds; r++) {
  const small = await measure(smallPath, queries, `[${r}/${rounds}]`);
  heapMb();
  const large = await measure(values.large!, queries, `[${r}/${rounds}]`);
  heapMb();
  runs.push({ small, large, ratios: ratiosOf(small, large) });
}
const load = { before: loadBefore.map((x) => Number(x.toFixed(2))), after: loadavg().map((x) => Number(x.toFixed(2))) };
const small = medianOf(runs.map((r) => r.small));
const large = medianOf(runs.map((r) => r.large));
const ratios = medianOf(runs.map((r) => r.ratios));
const result = { tools: large.tools, queries: queries.length, rounds, load, small, large, ratios, per_round: runs.map((r) => r.ratios) };

if (values.json) {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} else {
  const row = (name: string, m: Measured) => [
    name, String(m.tools), m.build_ms.toFixed(0), m.build_cpu_ms.toFixed(0), m.build_us_per_tool.toFixed(1), m.heap_mb.toFixed(1),
    m.p50_ms.toFixed(3), m.p99_ms.toFixed(3), m.cpu_p50_ms.toFixed(3), m["ndcg@10"].toFixed(4), m.snapshot_mb.toFixed(1), m.snapshot_load_ms.toFixed(0),
  ];
  const each = (key: keyof Ratios, digits = 2) => runs.map((r) => r.ratios[key].toFixed(digits)).join(" / ");
  console.log(`${queries.length} queries, ${rounds} round${rounds === 1 ? "" : "s"} (medians); load average ${load.before.join(" ")} before, ${load.after.join(" ")} after${gc ? "" : " (run with --expose-gc for exact heap figures)"}`);
  console.log(table(["catalog", "tools", "build ms", "build CPU ms", "µs/tool", "heap MB", "p50 ms", "p99 ms", "CPU p50 ms", "nDCG@10", "snapshot MB", "load ms"],
    [row("scale", small), row("large", large)]).join("\n"));
  console.log(table(["ratio", "median", "per round", "target"], [
    ["build time per tool, large ÷ small", ratios.build_per_tool.toFixed(2), each("build_per_tool"), "≤ 1.3"],
    ["build CPU per tool, large ÷ small", ratios.build_cpu_per_tool.toFixed(2), each("build_cpu_per_tool"), "–"],
    ["bm25 p50, large ÷ small", ratios.p50.toFixed(2), each("p50"), "≤ 4"],
    ["bm25 CPU p50, large ÷ small", ratios.cpu_p50.toFixed(2), each("cpu_p50"), "–"],
    ["heap at large (MB)", large.heap_mb.toFixed(0), runs.map((r) => r.large.heap_mb.toFixed(0)).join(" / "), "≤ 600"],
    ["snapshot load ÷ rebuild, small", ratios.snapshot_load_over_build_small.toFixed(2), each("snapshot_load_over_build_small"), "≤ 0.3"],
    ["snapshot load ÷ rebuild, large", ratios.snapshot_load_over_build_large.toFixed(2), each("snapshot_load_over_build_large"), "≤ 0.3"],
  ]).join("\n"));
}
