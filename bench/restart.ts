/**
 * Service restart benchmark: a fresh process loading the scale collection from its SQLite store, rebuilt from the items
 * (snapshots off) against loaded from the index snapshot the store keeps, in one run. With `--docs`, the collection is
 * instead the 100k-passage knowledge base of bench:documents (bench/corpus.ts), searched with BM25.
 *
 *   npm run bench:restart               # table
 *   npm run bench:restart -- --docs     # the 100k-passage docs collection
 *   npm run bench:restart -- --json     # one JSON object
 *
 * Each restart is its own child process (cold JIT, as a real restart): it opens the store, starts `Collections` and
 * gets every tool's vector back (from the store for a rebuild, from the snapshot otherwise; no embedding call either
 * way), timed in wall and CPU time. Rounds alternate rebuild/snapshot to spread the machine's drift; medians are
 * reported, and both kinds of restart must answer the same queries identically (bm25 and hybrid).
 *
 * Options: --catalog FILE, --queries FILE, --rounds N (3); with --docs: --passages N (100000).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { readRecords } from "../src/catalog/read-records.js";
import { table } from "../src/cli/output.js";
import { Embedder } from "../src/embeddings/embedder.js";
import { Collections } from "../src/server/collections.js";
import { checkItems } from "../src/server/items.js";
import { buildCorpus } from "./corpus.js";
import { readSnapshot } from "../src/server/snapshots.js";
import { openStore } from "../src/store/open.js";
import type { Store } from "../src/store/types.js";
import { StandInProvider } from "./stand-in-provider.js";

const { values } = parseArgs({
  options: {
    catalog: { type: "string", default: "../shared/data/scale/catalog.json" },
    queries: { type: "string" },
    rounds: { type: "string", default: "3" },
    docs: { type: "boolean", default: false },
    passages: { type: "string", default: "100000" },
    json: { type: "boolean", default: false },
    // Internal: one restart (the child process) over this store directory, `rebuild` or `snapshot`.
    child: { type: "string" },
    dir: { type: "string" },
  },
});

const queriesFile = values.queries ?? (values.docs ? "../shared/data/stackfaq/queries.jsonl" : "../shared/data/scale/queries.jsonl");

interface Restart {
  source: string;
  wallMs: number;
  cpuMs: number;
  providerCalls: number;
  answers: string;
}

/** The child: one restart, timed, then a digest of its answers to the queries. */
async function child(dir: string, mode: string): Promise<void> {
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const store = await openStore(join(dir, "store.sqlite"));
  const provider = new StandInProvider();
  const embedder = new Embedder(provider, { cache: store });
  const collections = new Collections(store, { embedder, log: () => {}, snapshots: mode === "snapshot" ? {} : false });
  await collections.start();
  if (values.docs) return docsChild(collections, store, started, cpuStart);
  const index = collections.get("scale").tools!;
  await index.prepareEmbeddings();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  // Counted before the queries below: a hybrid search embeds its query, a restart must embed nothing.
  const providerCalls = provider.calls;
  const digest = createHash("sha256");
  for (const q of readRecords(queriesFile, ["queries"]).slice(0, 100) as Array<{ query: string }>) {
    for (const engine of ["bm25", "hybrid"] as const) digest.update(JSON.stringify((await index.search(q.query, { limit: 5, engine })).map((h) => [h.name, h.score])));
  }
  const result: Restart = { source: collections.get("scale").source, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, providerCalls, answers: digest.digest("hex") };
  await collections.close();
  await store.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** The child's end for `--docs`: timed up to the loaded index, then a digest of its BM25 answers. */
async function docsChild(collections: Collections, store: Store, started: number, cpuStart: NodeJS.CpuUsage): Promise<void> {
  const docs = collections.get("kb").docs!;
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  const digest = createHash("sha256");
  for (const q of readRecords(queriesFile, ["queries"]).slice(0, 100) as Array<{ query: string }>) {
    digest.update(JSON.stringify(docs.searchSync(q.query, { limit: 5 }).map((h) => [h.id, h.score, h.offset])));
  }
  const result: Restart = { source: collections.get("kb").source, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, providerCalls: 0, answers: digest.digest("hex") };
  await collections.close();
  await store.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function restart(dir: string, mode: string): Restart {
  const flags = values.docs ? ["--docs"] : [];
  const run = spawnSync(process.execPath, ["--import", "tsx", new URL(import.meta.url).pathname, "--child", mode, "--dir", dir, "--queries", queriesFile, ...flags], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (run.status !== 0) throw new Error(`restart (${mode}) exited with ${run.status}`);
  return JSON.parse(run.stdout.trim().split("\n").pop()!) as Restart;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "toolsearch-bench-restart-"));
  try {
    // Fill a store as a client would, then every tool's vector; closing the filler saves the snapshot.
    const store = await openStore(join(dir, "store.sqlite"));
    const name = values.docs ? "kb" : "scale";
    if (values.docs) {
      const { records } = buildCorpus("../shared/data/stackfaq/docs.jsonl", Number(values.passages), 42);
      await store.putCollection(name, "docs", {}, records.map((r) => ({ key: r.id, body: r })));
    } else await store.putCollection(name, "tools", {}, checkItems("tools", readRecords(values.catalog!, ["tools"]), values.catalog!));
    const filler = new Collections(store, { embedder: new Embedder(new StandInProvider(), { cache: store }), log: () => {} });
    await filler.start();
    const tools = filler.sizeOf(filler.get(name));
    await filler.get(name).tools?.prepareEmbeddings();
    await filler.close();
    const saved = await readSnapshot(store, name);
    const snapshotBytes = saved?.bytes.length ?? 0;
    const storedBytes = saved?.storedBytes ?? 0;
    await store.close();

    const runs: Record<string, Restart[]> = { rebuild: [], snapshot: [] };
    for (let r = 0; r < Number(values.rounds); r++) for (const mode of ["rebuild", "snapshot"]) runs[mode].push(restart(dir, mode));
    const figures = Object.fromEntries(Object.entries(runs).map(([mode, list]) => [mode, {
      sources: [...new Set(list.map((x) => x.source))],
      wall_ms: Math.round(median(list.map((x) => x.wallMs))),
      cpu_ms: Math.round(median(list.map((x) => x.cpuMs))),
      provider_calls: Math.max(...list.map((x) => x.providerCalls)),
    }]));
    const identical = new Set([...runs.rebuild, ...runs.snapshot].map((x) => x.answers)).size === 1;
    const result = {
      catalog: values.docs ? `${values.passages} passages (bench/corpus.ts)` : values.catalog, items: tools, rounds: Number(values.rounds),
      snapshot_mb: Math.round(snapshotBytes / 1e5) / 10, stored_mb: Math.round(storedBytes / 1e5) / 10, ...figures,
      cpu_ratio: Math.round((figures.snapshot.cpu_ms / figures.rebuild.cpu_ms) * 100) / 100,
      wall_ratio: Math.round((figures.snapshot.wall_ms / figures.rebuild.wall_ms) * 100) / 100,
      identical_answers: identical,
      load_average: loadavg().map((l) => Math.round(l * 10) / 10),
    };
    if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else {
      process.stdout.write(`${table(["restart", "loaded from", "wall ms", "CPU ms", "embedding calls"], (["rebuild", "snapshot"] as const).map((m) => [m, figures[m].sources.join(","), String(figures[m].wall_ms), String(figures[m].cpu_ms), String(figures[m].provider_calls)])).join("\n")}\n`);
      process.stdout.write(`${tools} ${values.docs ? "documents" : "tools"}, snapshot ${result.snapshot_mb} MB (${result.stored_mb} MB stored); snapshot/rebuild wall ${result.wall_ratio}, CPU ${result.cpu_ratio}; identical answers: ${identical}; load average ${result.load_average.join(" ")}\n`);
    }
    if (!identical) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (values.child) await child(values.dir!, values.child);
else await main();
