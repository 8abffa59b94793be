/**
 * Service benchmark: `toolsearch serve` against a bare fastify route over the same index, in one run.
 *
 *   npm run bench:serve               # table
 *   npm run bench:serve -- --json     # one JSON object
 *
 * - search throughput: autocannon (50 connections) POSTs `/v1/collections/scale/search` (bm25, limit 5) with the
 *   StableToolBench queries in turn, through auth, rate limiting, the logger (to a file) and metrics; the same queries
 *   go to a bare fastify route that calls `ToolIndex.searchSync` on the same index. Both servers run in one child
 *   process (so the load generator does not share their event loop); rounds alternate service/bare to spread drift.
 * - single-tool upserts per second over HTTP, each acknowledged only after its commit (SQLite WAL, synchronous=FULL),
 *   one client in sequence and 16 in parallel;
 * - the same upserts through a second service on the same collections with the audit log on (each write recorded,
 *   batched off the request path), alternating with the first: the per-write cost of auditing, side by side;
 * - `call_tool` on `/mcp/fixture` (an `mcp` collection over the fixture MCP server, stdio) through the MCP SDK client:
 *   one call to the plain and one to the audited service in turn (same collection, same upstream process) for
 *   2 × rounds × seconds: calls per second on each, their ratio, and the difference of median call times in µs;
 * - the audit log alone, in process: µs per `record` (what a call waits for) and per entry written (the batched
 *   commit, off the request path), over --audit-entries entries;
 * - restart: a fresh process's time to load the scale collection from the store and to get all its vectors back
 *   from the store (no embedding call; vectors from a stand-in provider with USE-lite's 512 dimensions).
 *
 * Options: --catalog FILE, --queries FILE, --connections N (50), --seconds N per round (5), --rounds N (2), --upserts N (300),
 * --audit-entries N (20000).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import Fastify from "fastify";
import { pino } from "pino";
import { readRecords } from "../src/catalog/read-records.js";
import { table } from "../src/cli/output.js";
import { Embedder } from "../src/embeddings/embedder.js";
import { buildService } from "../src/server/app.js";
import { createApiKey } from "../src/server/auth.js";
import { Collections } from "../src/server/collections.js";
import { checkItems } from "../src/server/items.js";
import { perRequestSignalFetch } from "../src/mcp/request-signal.js";
import { openStore } from "../src/store/open.js";
import { AuditLog } from "../src/trust/audit.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StandInProvider } from "./stand-in-provider.js";

/** The upstream of the `call_tool` rounds: the fixture MCP server of the tests (echo_text answers its argument). */
const FIXTURE_SERVER = new URL("../test/fixtures/mcp/fixture-server.mjs", import.meta.url).pathname;

const { values } = parseArgs({
  options: {
    catalog: { type: "string", default: "../shared/data/scale/catalog.json" },
    queries: { type: "string", default: "../shared/data/stabletoolbench/queries.jsonl" },
    connections: { type: "string", default: "50" },
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "2" },
    upserts: { type: "string", default: "300" },
    "audit-entries": { type: "string", default: "20000" },
    json: { type: "boolean", default: false },
    // Internal: run the servers (the child process) over this store directory.
    target: { type: "string" },
  },
});

const round1 = (n: number) => Math.round(n * 10) / 10;

/** The child: reopens the store (timed: the restart figure), then serves the service and the bare route. */
async function target(dir: string): Promise<void> {
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const store = await openStore(join(dir, "store.sqlite"));
  const provider = new StandInProvider();
  const collections = new Collections(store, { embedder: new Embedder(provider, { cache: store }) });
  await collections.start();
  const loadedMs = performance.now() - started;
  const index = collections.get("scale").tools!;
  await index.prepareEmbeddings();
  const withVectorsMs = performance.now() - started;
  // CPU time too: on a shared machine the wall time mostly measures waiting for a core.
  const cpu = process.cpuUsage(cpuStart);
  const withVectorsCpuMs = (cpu.user + cpu.system) / 1000;
  // As `serve` logs: buffered asynchronous writes (here to a file rather than stderr).
  const log = pino.destination({ dest: join(dir, "service.log"), sync: false });
  const service = await buildService({ collections, logger: { level: "info", stream: log }, rateLimit: { max: 1e9, windowMs: 60_000 } });
  const serviceUrl = await service.listen({ port: 0, host: "127.0.0.1" });
  const audit = new AuditLog(store, { log: () => {} });
  const audited = await buildService({ collections, logger: { level: "info", stream: log }, rateLimit: { max: 1e9, windowMs: 60_000 }, audit });
  const auditedUrl = await audited.listen({ port: 0, host: "127.0.0.1" });
  const bare = Fastify();
  bare.post<{ Body: { query: string; limit?: number } }>("/search", async (request) => ({ results: index.searchSync(request.body.query, { limit: request.body.limit }) }));
  const bareUrl = await bare.listen({ port: 0, host: "127.0.0.1" });
  process.stdout.write(`${JSON.stringify({ serviceUrl, auditedUrl, bareUrl, loadedMs, withVectorsMs, withVectorsCpuMs, providerCalls: provider.calls, tools: index.size })}\n`);
  await new Promise<void>((resolve) => process.once("SIGTERM", () => resolve()));
  await service.close();
  await audited.close();
  await audit.close();
  await bare.close();
  await collections.close();
  await store.close();
}

interface TargetInfo {
  serviceUrl: string;
  auditedUrl: string;
  bareUrl: string;
  loadedMs: number;
  withVectorsMs: number;
  withVectorsCpuMs: number;
  providerCalls: number;
  tools: number;
}

async function startTarget(dir: string): Promise<{ child: ChildProcess; info: TargetInfo }> {
  const child = spawn(process.execPath, ["--import", "tsx", new URL(import.meta.url).pathname, "--target", dir], { stdio: ["ignore", "pipe", "inherit"] });
  const info = await new Promise<TargetInfo>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]) as TargetInfo);
    });
    child.once("exit", (code) => reject(new Error(`bench target exited with ${code}`)));
  });
  return { child, info };
}

/** autocannon against one URL, cycling through the queries. */
async function load(url: string, headers: Record<string, string>, queries: string[], seconds: number): Promise<autocannon.Result> {
  let next = 0;
  return autocannon({
    url,
    connections: Number(values.connections),
    duration: seconds,
    requests: [{
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      setupRequest: (request) => ({ ...request, body: JSON.stringify({ query: queries[next++ % queries.length], limit: 5 }) }),
    }],
  });
}

interface LoadFigures {
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
  errors: number;
}

function merge(results: autocannon.Result[]): LoadFigures {
  const total = results.reduce((sum, r) => sum + r.requests.total, 0);
  const seconds = results.reduce((sum, r) => sum + r.duration, 0);
  return {
    requests_per_s: Math.round(total / seconds),
    // Medians and p99 of the rounds, averaged: each round's percentiles come from autocannon's histogram.
    p50_ms: round1(results.reduce((sum, r) => sum + r.latency.p50, 0) / results.length),
    p99_ms: round1(results.reduce((sum, r) => sum + r.latency.p99, 0) / results.length),
    non_2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  };
}

/** An MCP client session on `/mcp/fixture` of one service. */
async function mcpClient(url: string, key: string): Promise<Client> {
  const client = new Client({ name: "bench-serve", version: "1.0.0" });
  // A signal per request (src/mcp/request-signal.ts): the transport's shared one would collect a listener per call.
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp/fixture`), { requestInit: { headers: { authorization: `Bearer ${key}` } }, fetch: perRequestSignalFetch() }));
  return client;
}

/** One `call_tool` of the fixture's echo tool; returns its time in ms. */
async function timedCall(client: Client, n: number): Promise<number> {
  const started = performance.now();
  const answer = await client.callTool({ name: "call_tool", arguments: { name: "fx__echo_text", arguments: { text: `call ${n}` } } });
  if (answer.isError) throw new Error(`call_tool failed: ${JSON.stringify(answer.content)}`);
  return performance.now() - started;
}

/**
 * Calls for `seconds`, one plain and one audited in turn (which goes first swaps each pair), so that the machine's
 * drift, large when other work shares the cores, falls on both alike. Returns each side's call times in ms.
 */
async function pairedCalls(plain: Client, audited: Client, seconds: number): Promise<{ plain: number[]; audited: number[] }> {
  const times = { plain: [] as number[], audited: [] as number[] };
  const until = performance.now() + seconds * 1000;
  for (let n = 0; performance.now() < until; n++) {
    if (n % 2 === 0) {
      times.plain.push(await timedCall(plain, n));
      times.audited.push(await timedCall(audited, n));
    } else {
      times.audited.push(await timedCall(audited, n));
      times.plain.push(await timedCall(plain, n));
    }
  }
  return times;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Figures of the `call_tool` rounds: plain against audited, side by side. */
interface CallFigures {
  calls_each: number;
  plain_per_s: number;
  audited_per_s: number;
  /** Audited throughput over plain (one client, calls in turn). */
  ratio: number;
  plain_median_us: number;
  audited_median_us: number;
  /** Median call time audited minus plain; noise can make it negative. */
  audit_us_per_call: number;
  entries_written: number;
}

/** Sets up the `mcp` collection over the fixture server, then alternates rounds of calls on the plain and audited service. */
async function callRounds(info: TargetInfo, admin: string, rounds: number, seconds: number): Promise<CallFigures> {
  const put = await fetch(`${info.serviceUrl}/v1/collections/fixture`, {
    method: "PUT",
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: JSON.stringify({ kind: "mcp", mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER] } } }),
  });
  if (!put.ok) throw new Error(`PUT /v1/collections/fixture answered ${put.status}: ${await put.text()}`);
  const plain = await mcpClient(info.serviceUrl, admin);
  const audited = await mcpClient(info.auditedUrl, admin);
  try {
    // The upstream starts in the background: wait until its tools can be called, then warm both paths up.
    for (let i = 0; ; i++) {
      const answer = await plain.callTool({ name: "call_tool", arguments: { name: "fx__echo_text", arguments: { text: "ready?" } } });
      if (!answer.isError) break;
      if (i === 300) throw new Error("the fixture upstream never became callable");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const warmUp = (await pairedCalls(plain, audited, 2)).audited.length;
    const times = await pairedCalls(plain, audited, rounds * seconds * 2);
    const entries = await countAudit(info.auditedUrl, admin, "fixture");
    if (entries !== warmUp + times.audited.length) throw new Error(`the audited service recorded ${entries} calls of ${warmUp + times.audited.length}`);
    const [plainMedian, auditedMedian] = [median(times.plain), median(times.audited)];
    return {
      calls_each: times.plain.length,
      plain_per_s: Math.round((times.plain.length * 1000) / sum(times.plain)),
      audited_per_s: Math.round((times.audited.length * 1000) / sum(times.audited)),
      ratio: Math.round((sum(times.plain) / sum(times.audited)) * 100) / 100,
      plain_median_us: Math.round(plainMedian * 1000),
      audited_median_us: Math.round(auditedMedian * 1000),
      audit_us_per_call: Math.round((auditedMedian - plainMedian) * 1000),
      entries_written: entries,
    };
  } finally {
    await plain.close();
    await audited.close();
  }
}

/** How many audit entries a collection has, paging through `GET /v1/audit`. */
async function countAudit(url: string, admin: string, collection: string): Promise<number> {
  let count = 0;
  for (let before: number | undefined; ;) {
    const page = (await (await fetch(`${url}/v1/audit?collection=${collection}&limit=1000${before ? `&before=${before}` : ""}`, { headers: { authorization: `Bearer ${admin}` } })).json()) as { entries: unknown[]; next?: number };
    count += page.entries.length;
    if (page.next === undefined) return count;
    before = page.next;
  }
}

/** The audit log alone on its own SQLite file: µs per `record` (the call's share) and per entry committed (batched). */
async function auditLogCost(dir: string, entries: number): Promise<{ entries: number; record_us: number; write_us_per_entry: number }> {
  const store = await openStore(join(dir, "audit-alone.sqlite"));
  // A long flush period, so the timed loop measures pushes only; the flush is then timed on its own.
  const audit = new AuditLog(store, { flushMs: 3_600_000, maxBatch: entries + 1, log: () => {} });
  try {
    const started = performance.now();
    for (let i = 0; i < entries; i++) {
      audit.record({ who: "bench-key", action: "call_tool", collection: "fixture", target: "fx__echo_text", outcome: "ok", durationMs: 1.5, argumentBytes: 20 });
    }
    const recorded = performance.now();
    await audit.flush();
    const flushed = performance.now();
    return { entries, record_us: round1(((recorded - started) * 1000) / entries), write_us_per_entry: round1(((flushed - recorded) * 1000) / entries) };
  } finally {
    await audit.close();
    await store.close();
  }
}

/** Upserts of single tools, `parallel` clients at a time, each waiting for its acknowledgement. */
async function upserts(url: string, key: string, count: number, parallel: number, tag = ""): Promise<number> {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: parallel }, async () => {
    for (let i = next++; i < count; i = next++) {
      const name = `bench_upsert${tag}_${parallel}_${i}`;
      const response = await fetch(`${url}/v1/collections/scale/tools/${name}`, {
        method: "PUT",
        headers,
        body: JSON.stringify({ name, description: `Benchmark tool ${i}: upserted one at a time.`, input_schema: { type: "object", properties: {} } }),
      });
      if (response.status !== 201) throw new Error(`upsert answered ${response.status}: ${await response.text()}`);
    }
  }));
  return Math.round(count / ((performance.now() - started) / 1000));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "toolsearch-bench-serve-"));
  try {
    // Fill a store as a client would: the catalog as given, then every tool's vector (stand-in provider).
    const store = await openStore(join(dir, "store.sqlite"));
    const items = checkItems("tools", readRecords(values.catalog!, ["tools"]), values.catalog!);
    const putStart = performance.now();
    await store.putCollection("scale", "tools", {}, items);
    const putMs = performance.now() - putStart;
    const filler = new Collections(store, { embedder: new Embedder(new StandInProvider(), { cache: store }), log: () => {} });
    await filler.start();
    await filler.get("scale").tools!.prepareEmbeddings();
    await filler.close();
    const { key } = await createApiKey(store, { scope: "write" });
    const { key: admin } = await createApiKey(store, { scope: "admin" });
    await store.close();

    const queries = readRecords(values.queries!, ["queries"]).map((q) => (q as { query: string }).query);
    const { child, info } = await startTarget(dir);
    try {
      const seconds = Number(values.seconds);
      const auth = { authorization: `Bearer ${key}` };
      // Warm-up of both (JIT, connection pools), then alternating measured rounds.
      await load(`${info.serviceUrl}/v1/collections/scale/search`, auth, queries, 2);
      await load(`${info.bareUrl}/search`, {}, queries, 2);
      const service: autocannon.Result[] = [];
      const bare: autocannon.Result[] = [];
      for (let r = 0; r < Number(values.rounds); r++) {
        service.push(await load(`${info.serviceUrl}/v1/collections/scale/search`, auth, queries, seconds));
        bare.push(await load(`${info.bareUrl}/search`, {}, queries, seconds));
      }
      const serviceFigures = merge(service);
      const bareFigures = merge(bare);
      const count = Number(values.upserts);
      // Alternating plain and audited runs, so that drift of a noisy machine falls on both.
      const upsertsSequential = await upserts(info.serviceUrl, key, count, 1);
      const auditedSequential = await upserts(info.auditedUrl, key, count, 1, "_audited");
      const upsertsParallel = await upserts(info.serviceUrl, key, count, 16);
      const auditedParallel = await upserts(info.auditedUrl, key, count, 16, "_audited");
      const calls = await callRounds(info, admin, Number(values.rounds), seconds);
      const auditAlone = await auditLogCost(dir, Number(values["audit-entries"]));
      report({
        catalog: values.catalog,
        tools: info.tools,
        queries: queries.length,
        connections: Number(values.connections),
        seconds_per_round: seconds,
        rounds: Number(values.rounds),
        search: { service: serviceFigures, bare: bareFigures, ratio: Math.round((serviceFigures.requests_per_s / bareFigures.requests_per_s) * 100) / 100 },
        upserts_per_s: { sequential: upsertsSequential, parallel_16: upsertsParallel },
        audited_upserts_per_s: {
          sequential: auditedSequential,
          parallel_16: auditedParallel,
          ratio_sequential: Math.round((auditedSequential / upsertsSequential) * 100) / 100,
          ratio_parallel_16: Math.round((auditedParallel / upsertsParallel) * 100) / 100,
        },
        call_tool: calls,
        audit_log: auditAlone,
        store: { put_collection_ms: Math.round(putMs), restart_load_ms: Math.round(info.loadedMs), restart_with_vectors_ms: Math.round(info.withVectorsMs), restart_with_vectors_cpu_ms: Math.round(info.withVectorsCpuMs), provider_calls_on_restart: info.providerCalls },
        load_average: (await import("node:os")).loadavg().map((l) => Math.round(l * 10) / 10),
      });
    } finally {
      child.kill("SIGTERM");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(result: {
  tools: number; queries: number; connections: number;
  search: { service: LoadFigures; bare: LoadFigures; ratio: number };
  upserts_per_s: { sequential: number; parallel_16: number };
  audited_upserts_per_s: { sequential: number; parallel_16: number; ratio_sequential: number; ratio_parallel_16: number };
  call_tool: CallFigures;
  audit_log: { entries: number; record_us: number; write_us_per_entry: number };
  store: { put_collection_ms: number; restart_load_ms: number; restart_with_vectors_ms: number; restart_with_vectors_cpu_ms: number; provider_calls_on_restart: number };
  load_average: number[];
  [key: string]: unknown;
}): void {
  if (values.json) return void process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  const { service, bare, ratio } = result.search;
  const lines = [
    `${result.tools} tools, ${result.queries} queries, ${result.connections} connections; load average ${result.load_average.join(" ")}`,
    "",
    ...table(["system", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors"], [
      ["service (auth, log, metrics, rate limit)", String(service.requests_per_s), String(service.p50_ms), String(service.p99_ms), String(service.non_2xx), String(service.errors)],
      ["bare fastify + searchSync", String(bare.requests_per_s), String(bare.p50_ms), String(bare.p99_ms), String(bare.non_2xx), String(bare.errors)],
    ]),
    `service / bare throughput: ${ratio}`,
    "",
    `upserts/s (durable, one at a time): ${result.upserts_per_s.sequential}; with 16 clients: ${result.upserts_per_s.parallel_16}`,
    `with the audit log on: ${result.audited_upserts_per_s.sequential} (×${result.audited_upserts_per_s.ratio_sequential}); with 16 clients: ${result.audited_upserts_per_s.parallel_16} (×${result.audited_upserts_per_s.ratio_parallel_16})`,
    `call_tool on an mcp collection (fixture upstream, ${result.call_tool.calls_each} calls each, in turn): ${result.call_tool.plain_per_s}/s plain, ${result.call_tool.audited_per_s}/s audited (×${result.call_tool.ratio}); median ${result.call_tool.plain_median_us} µs against ${result.call_tool.audited_median_us} µs: ${result.call_tool.audit_us_per_call} µs per call for auditing (${result.call_tool.entries_written} entries written)`,
    `audit log alone: ${result.audit_log.record_us} µs per record (on the call's path), ${result.audit_log.write_us_per_entry} µs per entry written (batched, off it), over ${result.audit_log.entries} entries`,
    `store: put of the whole collection ${result.store.put_collection_ms} ms; restart: collection loaded in ${result.store.restart_load_ms} ms, with all vectors from the store in ${result.store.restart_with_vectors_ms} ms (CPU ${result.store.restart_with_vectors_cpu_ms} ms; ${result.store.provider_calls_on_restart} embedding calls)`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

if (values.target) await target(values.target);
else await main();
