/**
 * Many-collections benchmark (issue 27): one `toolsearch serve` process over a store of 1,000 collections of 200–500
 * real tools each (drawn from the catalogs in ../shared/data), every collection with its index snapshot saved as a
 * replica would have saved it. Measured in one run, each phase its own fresh process:
 *
 * - restart to ready: spawn of the built CLI (`dist/`, else `src/` through tsx) to the first `/readyz` 200, and the CPU
 *   time the process used until then (median of 3);
 * - a Zipf-like request mix (collection rank r drawn with weight 1/r^s) without a budget and with `--memory-budget`:
 *   RSS sampled over time, p50/p99 of warm and cold searches (cold: the request loaded its collection, read from the
 *   service's own load counter), loads and evictions per minute, and whether every answer is identical across both;
 * - every one of the first `--small-count` collections searched once under `--memory-budget --small-budget`, RSS after.
 *
 *   npm run bench:collections                 # table
 *   npm run bench:collections -- --json       # one JSON object
 *
 * Options: --collections N (1000), --requests N (2000), --zipf S (1.1), --budget MB (256), --small-budget MB (64),
 * --small-count N (400), --seed N (7), --dir PATH (keep and reuse the store there), --node-args "FLAGS" (passed to every
 * server's node, to compare V8 settings in one run), --skip-restart and --skip-zipf (measure only what follows).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { readRecords } from "../src/catalog/read-records.js";
import { table } from "../src/cli/output.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import { checkItems } from "../src/server/items.js";
import { saveSnapshot } from "../src/server/snapshots.js";
import { openStore } from "../src/store/open.js";
import type { ItemInput } from "../src/store/types.js";
import { random } from "./random.js";

const { values } = parseArgs({
  options: {
    collections: { type: "string", default: "1000" },
    requests: { type: "string", default: "2000" },
    zipf: { type: "string", default: "1.1" },
    budget: { type: "string", default: "256" },
    "small-budget": { type: "string", default: "64" },
    "small-count": { type: "string", default: "400" },
    seed: { type: "string", default: "7" },
    dir: { type: "string" },
    "node-args": { type: "string", default: "" },
    "skip-restart": { type: "boolean", default: false },
    "skip-zipf": { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});

const CATALOGS = ["scale", "smithery", "stabletoolbench", "metatool", "toolalpaca"].map((name) => `../shared/data/${name}/catalog.json`);
// The built CLI when there is one (`npm run build`): restart is measured as a deployment runs it, without tsx.
const BUILT = new URL("../dist/cli/main.js", import.meta.url).pathname;
const CLI = [
  ...values["node-args"]!.split(/\s+/).filter(Boolean),
  ...(existsSync(BUILT) ? [BUILT] : ["--import", "tsx", new URL("../src/cli/main.ts", import.meta.url).pathname]),
];
const progress = (line: string) => process.stderr.write(`bench:collections: ${line}\n`);

/** Every tool of the shared catalogs, once per name. */
function toolPool(): ItemInput[] {
  const byName = new Map<string, ItemInput>();
  for (const file of CATALOGS) {
    if (!existsSync(file)) continue;
    for (const item of checkItems("tools", readRecords(file, ["tools"]), file)) if (!byName.has(item.key)) byName.set(item.key, item);
  }
  return [...byName.values()];
}

/**
 * Fills the store: `count` collections of 200–500 tools sampled from the pool. The ones in `snapshotted` (those the
 * runs will request) also get their index snapshot, as a replica that loaded them once would have saved it; building
 * them all would only cost setup time, since the others are never loaded.
 */
async function fillStore(path: string, count: number, seed: number, snapshotted: Set<string>): Promise<Map<string, number>> {
  const store = await openStore(path);
  const sizes = new Map<string, number>();
  try {
    const existing = await store.listCollections();
    if (existing.length === count) {
      // A store kept with --dir: add the snapshots a run with other sizes did not save.
      for (const record of existing) {
        sizes.set(record.name, record.size);
        if (!snapshotted.has(record.name) || (await store.snapshotVersion(record.name)) !== undefined) continue;
        const index = await ToolIndex.fromTools((await store.listItems(record.name)).map((item) => item.body));
        await saveSnapshot(store, record.name, record.version, () => index.snapshot());
      }
      return sizes;
    }
    const pool = toolPool();
    progress(`${pool.length} distinct tools in the shared catalogs; filling ${count} collections`);
    const next = random(seed);
    for (let c = 0; c < count; c++) {
      const size = 200 + Math.floor(next() * 301);
      const start = Math.floor(next() * pool.length);
      // A contiguous run of the pool (wrapping): tools of one server or API stay together, as in a real catalog.
      const items = Array.from({ length: size }, (_, i) => pool[(start + i) % pool.length]);
      const name = `c${String(c).padStart(4, "0")}`;
      const { collection } = await store.putCollection(name, "tools", {}, items);
      if (snapshotted.has(name)) {
        const index = await ToolIndex.fromTools(items.map((item) => item.body));
        await saveSnapshot(store, name, collection.version, () => index.snapshot());
      }
      sizes.set(name, size);
      if ((c + 1) % 100 === 0) progress(`${c + 1}/${count} collections stored`);
    }
    return sizes;
  } finally {
    await store.close();
  }
}

interface Server {
  url: string;
  child: ChildProcess;
  /** Milliseconds from spawn to the first `/readyz` 200. */
  readyMs: number;
  /** Milliseconds from `listening on` (the process is up) to the first `/readyz` 200: the collections' share. */
  listeningToReadyMs: number;
  /** CPU milliseconds (user + system) the process used until ready: less sensitive to a busy machine than wall time. */
  readyCpuMs: number;
  rssMb(): number;
  stop(): Promise<void>;
}

async function startServer(store: string, extra: string[] = []): Promise<Server> {
  const started = performance.now();
  const child = spawn(process.execPath, [...CLI, "serve", "--store", store, "--port", "0", "--no-auth", "--log", "warn", "--rate-limit", "0", ...extra], {
    env: { ...process.env, FORCE_COLOR: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1].replace(/\/$/, ""));
    });
    child.once("exit", (code) => reject(new Error(`serve exited (${code}) before listening`)));
  });
  const listening = performance.now();
  while ((await fetch(`${url}/readyz`).catch(() => undefined))?.status !== 200) await new Promise((r) => setTimeout(r, 5));
  const readyMs = performance.now() - started;
  const listeningToReadyMs = performance.now() - listening;
  // utime and stime, fields 14 and 15 of /proc/PID/stat, in clock ticks (100 per second on Linux).
  const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
  const readyCpuMs = (Number(stat[11]) + Number(stat[12])) * 10;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url, child, readyMs, listeningToReadyMs, readyCpuMs,
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? 0) / 1024,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Counters of the service's /metrics: loads (any source), evictions. */
async function counters(url: string): Promise<{ loads: number; evictions: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const sum = (name: string) => [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "gm"))].reduce((total, m) => total + Number(m[1]), 0);
  return { loads: sum("toolsearch_collection_loads_total"), evictions: sum("toolsearch_collection_evictions_total") };
}

/** Collection ranks drawn with weight 1/rank^s, over a seeded permutation of the collections. */
function zipfMix(names: string[], requests: number, s: number, seed: number): string[] {
  const next = random(seed);
  const order = [...names];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const cumulative: number[] = [];
  let total = 0;
  for (let r = 1; r <= order.length; r++) cumulative.push((total += 1 / r ** s));
  return Array.from({ length: requests }, () => {
    const x = next() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return order[lo];
  });
}

interface RunResult {
  warm: number[];
  cold: number[];
  /** Cold first searches of collections of 450 tools or more. */
  cold500: number[];
  rss: Array<[seconds: number, mb: number]>;
  loadsPerMin: number;
  evictionsPerMin: number;
  answers: string[];
  baselineMb: number;
  endMb: number;
  /** RSS after the server sat idle for `SETTLE_MS` past the last request: what it holds once the churn's garbage is collected. */
  settledMb: number;
}

const SETTLE_MS = 5_000;

/** Sends the mix to a fresh server, one request at a time (latency, not throughput, is measured). */
async function run(store: string, mix: string[], queries: string[], sizes: Map<string, number>, extra: string[]): Promise<RunResult> {
  const server = await startServer(store, extra);
  const baselineMb = server.rssMb();
  const out: RunResult = { warm: [], cold: [], cold500: [], rss: [], loadsPerMin: 0, evictionsPerMin: 0, answers: [], baselineMb, endMb: 0, settledMb: 0 };
  const started = performance.now();
  const sampler = setInterval(() => out.rss.push([(performance.now() - started) / 1000, server.rssMb()]), 500);
  try {
    let before = await counters(server.url);
    for (let i = 0; i < mix.length; i++) {
      const t0 = performance.now();
      const response = await fetch(`${server.url}/v1/collections/${mix[i]}/search`, {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: queries[i % queries.length], limit: 5 }),
      });
      const body = (await response.json()) as { results?: Array<{ name: string; score: number }> };
      const ms = performance.now() - t0;
      if (response.status !== 200) throw new Error(`search ${mix[i]}: HTTP ${response.status} ${JSON.stringify(body)}`);
      out.answers.push(createHash("sha256").update(JSON.stringify(body.results!.map((h) => [h.name, h.score]))).digest("hex").slice(0, 16));
      const after = await counters(server.url);
      if (after.loads > before.loads) {
        out.cold.push(ms);
        if ((sizes.get(mix[i]) ?? 0) >= 450) out.cold500.push(ms);
      } else out.warm.push(ms);
      before = after;
      if ((i + 1) % 500 === 0) progress(`${i + 1}/${mix.length} requests${extra.length ? ` (${extra.join(" ")})` : ""}, RSS ${server.rssMb().toFixed(0)} MB`);
    }
    const minutes = (performance.now() - started) / 60_000;
    out.loadsPerMin = before.loads / minutes;
    out.evictionsPerMin = before.evictions / minutes;
    out.endMb = server.rssMb();
    out.rss.push([(performance.now() - started) / 1000, out.endMb]);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    out.settledMb = server.rssMb();
  } finally {
    clearInterval(sampler);
    await server.stop();
  }
  return out;
}

const pct = (xs: number[], p: number) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]);
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

function summary(result: RunResult) {
  return {
    warm_p50_ms: round(pct(result.warm, 0.5), 2), warm_p99_ms: round(pct(result.warm, 0.99), 2),
    cold_p50_ms: round(pct(result.cold, 0.5)), cold_p99_ms: round(pct(result.cold, 0.99)),
    cold_500_tools_p50_ms: round(pct(result.cold500, 0.5)), cold_500_tools_count: result.cold500.length,
    cold_requests: result.cold.length, loads_per_min: round(result.loadsPerMin), evictions_per_min: round(result.evictionsPerMin),
    rss_baseline_mb: round(result.baselineMb), rss_max_mb: round(Math.max(...result.rss.map(([, mb]) => mb))), rss_end_mb: round(result.endMb), rss_settled_mb: round(result.settledMb),
    rss_over_time: result.rss.filter((_, i) => i % 10 === 0).map(([s, mb]) => [round(s), round(mb)]),
  };
}

async function main(): Promise<void> {
  const count = Number(values.collections);
  const dir = values.dir ?? mkdtempSync(join(tmpdir(), "toolsearch-bench-collections-"));
  mkdirSync(dir, { recursive: true });
  const store = join(dir, "store.sqlite");
  try {
    const all = Array.from({ length: count }, (_, c) => `c${String(c).padStart(4, "0")}`);
    const mix = zipfMix(all, Number(values.requests), Number(values.zipf), Number(values.seed) + 1);
    const small = all.slice(0, Number(values["small-count"]));
    const sizes = await fillStore(store, count, Number(values.seed), new Set([...mix, ...small]));
    const queries = (readRecords("../shared/data/scale/queries.jsonl", ["queries"]) as Array<{ query: string }>).map((q) => q.query);

    const restarts: number[] = [];
    const afterListening: number[] = [];
    const cpu: number[] = [];
    let idleMb = 0;
    for (let r = 0; r < (values["skip-restart"] ? 0 : 3); r++) {
      const server = await startServer(store);
      restarts.push(server.readyMs);
      afterListening.push(server.listeningToReadyMs);
      cpu.push(server.readyCpuMs);
      idleMb = server.rssMb();
      await server.stop();
    }
    const zipf = !values["skip-zipf"];
    const unbudgeted = zipf ? await run(store, mix, queries, sizes, []) : undefined;
    const budgeted = zipf ? await run(store, mix, queries, sizes, ["--memory-budget", values.budget!]) : undefined;
    const identical = unbudgeted?.answers.every((answer, i) => answer === budgeted!.answers[i]);

    const once = await run(store, small, queries, sizes, ["--memory-budget", values["small-budget"]!]);
    const result = {
      collections: count, tools: [...sizes.values()].reduce((a, b) => a + b, 0), requests: mix.length, zipf_s: Number(values.zipf),
      distinct_collections_requested: new Set(mix).size,
      restart_to_ready_ms: round(pct(restarts, 0.5), 0), listening_to_ready_ms: round(pct(afterListening, 0.5), 0), restart_cpu_ms: round(pct(cpu, 0.5), 0), restart_rss_mb: round(idleMb),
      unbudgeted: unbudgeted && summary(unbudgeted),
      [`budget_${values.budget}mb`]: budgeted && summary(budgeted),
      identical_answers: identical,
      [`each_of_${small.length}_once_budget_${values["small-budget"]}mb`]: summary(once),
      load_average: loadavg().map((l) => round(l)),
    };
    if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else {
      const runs: Array<[string, RunResult | undefined]> = [["no budget", unbudgeted], [`--memory-budget ${values.budget}`, budgeted], [`${small.length} once, --memory-budget ${values["small-budget"]}`, once]];
      const rows = runs.filter((entry): entry is [string, RunResult] => entry[1] !== undefined).map(([label, r]) => {
        const s = summary(r);
        return [label, `${s.warm_p50_ms}/${s.warm_p99_ms}`, `${s.cold_p50_ms}/${s.cold_p99_ms}`, String(s.cold_500_tools_p50_ms), String(s.loads_per_min), String(s.evictions_per_min), `${s.rss_baseline_mb}/${s.rss_max_mb}/${s.rss_end_mb}/${s.rss_settled_mb}`];
      });
      process.stdout.write(`${table(["run", "warm p50/p99 ms", "cold p50/p99 ms", "cold 450+ p50", "loads/min", "evictions/min", "RSS start/max/end/settled MB"], rows).join("\n")}\n`);
      process.stdout.write(`${count} collections, ${result.tools} tools; restart to ready ${result.restart_to_ready_ms} ms (${result.listening_to_ready_ms} ms of it after listening, ${result.restart_cpu_ms} ms of CPU; RSS ${result.restart_rss_mb} MB); identical answers with and without a budget: ${identical}; load average ${result.load_average.join(" ")}\n`);
    }
    if (identical === false) process.exitCode = 1;
  } finally {
    if (!values.dir) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
