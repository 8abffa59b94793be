/**
 * Soak: `call_tool` through `toolsearch mcp --http` (a real process) to server-everything over Streamable HTTP, for
 * minutes on end, watching for creep in the gateway: its RSS, the most abort listeners any one AbortSignal of its
 * process holds (a probe loaded with `--import`, bench/probes/abort-listeners.mjs), the warnings it writes
 * (MaxListenersExceededWarning above all), its heap (used and total, and heap and RSS right after a full collection
 * the probe runs once a minute with --expose-gc: what is really retained), and the client's p50/p99 call time, per
 * minute.
 *
 *   npm run bench:soak -- --minutes 10            # table per minute and a summary
 *   npm run bench:soak -- --minutes 2 --json      # one JSON object
 *
 * Options: --minutes N (10), --concurrency N calls in flight at once on one session (4), --gateway-flag F (repeatable)
 * a Node flag for the gateway only (e.g. `--gateway-flag=--max-semi-space-size=1`), --gateway-env NAME=VALUE
 * (repeatable) an environment variable for the gateway only (e.g. heaptrack's LD_PRELOAD). Environment variables set
 * on the bench itself, such as MALLOC_ARENA_MAX, reach all three processes (the bench, server-everything, the gateway).
 *
 * RSS is reported for each process apart: the gateway (what the soak is about), the upstream server-everything and the
 * bench client itself, and the gateway's RSS after the minute's full collection is split into V8's heap (heap total),
 * external memory V8 knows of, and the rest ("native": code, stacks, malloc's arenas and the free memory they keep).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { table } from "../src/cli/output.js";
import { perRequestSignalFetch } from "../src/mcp/request-signal.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const PROBE = join(ROOT, "bench", "probes", "abort-listeners.mjs");

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    concurrency: { type: "string", default: "4" },
    "gateway-flag": { type: "string", multiple: true, default: [] },
    "gateway-env": { type: "string", multiple: true, default: [] },
    json: { type: "boolean", default: false },
  },
});
const minutes = Number(values.minutes);
const concurrency = Number(values.concurrency);

interface Minute {
  minute: number;
  calls: number;
  errors: number;
  p50_ms: number;
  p99_ms: number;
  rss_mb: number;
  heap_used_mb: number;
  heap_total_mb: number;
  heap_after_gc_mb: number;
  rss_after_gc_mb: number;
  heap_total_after_gc_mb: number;
  external_after_gc_mb: number;
  native_after_gc_mb: number;
  rss_anon_mb: number;
  rss_file_mb: number;
  rss_shmem_mb: number;
  upstream_rss_mb: number;
  bench_rss_mb: number;
  listeners_max: number;
  warnings: number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "toolsearch-soak-"));
  const children: ChildProcess[] = [];
  try {
    const port = await freePort();
    const everything = spawn(process.execPath, [serverScript("server-everything"), "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
    children.push(everything);
    await waitForLine(everything, /listening on port/);
    writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { everything: { url: `http://127.0.0.1:${port}/mcp` } } }));
    const probeFile = join(dir, "probe.json");
    const gateway = spawn(
      process.execPath,
      ["--expose-gc", ...(values["gateway-flag"] ?? []), "--import", PROBE, "--import", "tsx", join(ROOT, "src", "cli", "main.ts"), "mcp", "--config", join(dir, "mcp.json"), "--store", join(dir, "store.sqlite"), "--http", "0"],
      { cwd: ROOT, env: { ...process.env, ...gatewayEnv(values["gateway-env"] ?? []), TOOLSEARCH_PROBE_FILE: probeFile }, stdio: ["ignore", "ignore", "pipe"] },
    );
    children.push(gateway);
    let warnings = 0;
    gateway.stderr!.on("data", (chunk: Buffer) => (warnings += (chunk.toString().match(/MaxListenersExceededWarning/g) ?? []).length));
    const url = (await waitForLine(gateway, /listening on (\S+)/))[1];
    if (!values.json) process.stderr.write(`gateway pid ${gateway.pid}, upstream pid ${everything.pid}\n`);
    const client = new Client({ name: "bench-soak", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: perRequestSignalFetch() }));

    const rows: Minute[] = [];
    let times: number[] = [];
    let errors = 0;
    let listenersMax = 0;
    let warningsBefore = 0;
    const probe = setInterval(() => (listenersMax = Math.max(listenersMax, readProbe(probeFile).recent)), 1000);
    const end = Date.now() + minutes * 60_000;
    let n = 0;
    const worker = async () => {
      while (Date.now() < end) {
        const started = performance.now();
        try {
          const answer = await client.callTool({ name: "call_tool", arguments: { name: "everything__echo", arguments: { message: `call ${n++}` } } });
          if (answer.isError) errors++;
        } catch {
          errors++;
        }
        times.push(performance.now() - started);
      }
    };
    const rssStart = rssMb(gateway.pid!);
    const sample = () => {
      const sorted = times.sort((a, b) => a - b);
      rows.push({
        minute: rows.length + 1,
        calls: sorted.length,
        errors,
        p50_ms: round2(sorted[Math.floor(sorted.length * 0.5)] ?? 0),
        p99_ms: round2(sorted[Math.floor(sorted.length * 0.99)] ?? 0),
        rss_mb: rssMb(gateway.pid!),
        heap_used_mb: mb(readProbe(probeFile).heapUsed),
        heap_total_mb: mb(readProbe(probeFile).heapTotal),
        heap_after_gc_mb: mb(readProbe(probeFile).afterGc.heapUsed),
        rss_after_gc_mb: mb(readProbe(probeFile).afterGc.rss),
        heap_total_after_gc_mb: mb(readProbe(probeFile).afterGc.heapTotal),
        external_after_gc_mb: mb(readProbe(probeFile).afterGc.external),
        native_after_gc_mb: mb(nativeBytes(readProbe(probeFile).afterGc)),
        ...rssParts(gateway.pid!),
        upstream_rss_mb: rssMb(everything.pid!),
        bench_rss_mb: mb(process.memoryUsage.rss()),
        listeners_max: listenersMax,
        warnings: warnings - warningsBefore,
      });
      if (!values.json) process.stderr.write(`minute ${rows.length}: ${JSON.stringify(rows.at(-1))}\n`);
      times = [];
      errors = 0;
      listenersMax = 0;
      warningsBefore = warnings;
    };
    const sampler = setInterval(sample, 60_000);
    await Promise.all(Array.from({ length: concurrency }, worker));
    clearInterval(sampler);
    // The last minute, when the timer had not fired yet as the calls stopped.
    if (rows.length < minutes) sample();
    clearInterval(probe);
    await client.close();
    const summary = {
      minutes,
      concurrency,
      calls: rows.reduce((sum, r) => sum + r.calls, 0),
      rss_start_mb: rssStart,
      rss_end_mb: rows.at(-1)?.rss_mb ?? rssMb(gateway.pid!),
      gateway_flags: values["gateway-flag"],
      malloc_arena_max: process.env.MALLOC_ARENA_MAX ?? null,
      listeners_max: Math.max(readProbe(probeFile).most, ...rows.map((r) => r.listeners_max)),
      warnings,
      per_minute: rows,
    };
    if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    else {
      process.stdout.write(`${table(["minute", "calls", "errors", "p50 ms", "p99 ms", "RSS MB", "heap used MB", "heap total MB", "heap after GC MB", "RSS after GC MB", "heap total after GC MB", "external after GC MB", "native after GC MB", "RSS anon MB", "RSS file MB", "RSS shmem MB", "upstream RSS MB", "bench RSS MB", "listeners max", "warnings"], rows.map((r) => [r.minute, r.calls, r.errors, r.p50_ms, r.p99_ms, r.rss_mb, r.heap_used_mb, r.heap_total_mb, r.heap_after_gc_mb, r.rss_after_gc_mb, r.heap_total_after_gc_mb, r.external_after_gc_mb, r.native_after_gc_mb, r.rss_anon_mb, r.rss_file_mb, r.rss_shmem_mb, r.upstream_rss_mb, r.bench_rss_mb, r.listeners_max, r.warnings].map(String))).join("\n")}\n`);
      process.stdout.write(`calls ${summary.calls}; RSS ${summary.rss_start_mb} -> ${summary.rss_end_mb} MB; listeners max ${summary.listeners_max}; warnings ${summary.warnings}\n`);
    }
  } finally {
    for (const child of children) child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `NAME=VALUE` pairs as an environment. */
function gatewayEnv(pairs: string[]): Record<string, string> {
  return Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
}

interface Probe {
  most: number;
  recent: number;
  heapUsed: number;
  heapTotal: number;
  afterGc: { heapUsed: number; heapTotal: number; external: number; arrayBuffers: number; rss: number };
}

/** RSS that is neither V8's heap nor external memory V8 accounts for: code, stacks, and what malloc keeps. */
function nativeBytes(usage: Probe["afterGc"]): number {
  return Math.max(0, usage.rss - usage.heapTotal - usage.external);
}

function readProbe(file: string): Probe {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Probe;
  } catch {
    return { most: 0, recent: 0, heapUsed: 0, heapTotal: 0, afterGc: { heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0, rss: 0 } };
  }
}

function mb(bytes: number): number {
  return Math.round(bytes / 104857.6) / 10;
}

/** Resident set size of a process, MB (Linux /proc). */
function rssMb(pid: number): number {
  return statusMb(readFileSync(`/proc/${pid}/status`, "utf8"), "VmRSS");
}

/**
 * The kernel's split of a process's RSS: anonymous memory (V8's heap, malloc's arenas, stacks), pages of mapped files
 * (the node binary, shared libraries, SQLite's memory-mapped files) and shared memory (SQLite's WAL index).
 */
function rssParts(pid: number): Pick<Minute, "rss_anon_mb" | "rss_file_mb" | "rss_shmem_mb"> {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return { rss_anon_mb: statusMb(status, "RssAnon"), rss_file_mb: statusMb(status, "RssFile"), rss_shmem_mb: statusMb(status, "RssShmem") };
}

function statusMb(status: string, field: string): number {
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return Math.round(kb / 102.4) / 10;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function serverScript(pkg: string): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve(`@modelcontextprotocol/${pkg}/package.json`);
  const bin = (require(manifest) as { bin: Record<string, string> }).bin;
  return join(dirname(manifest), Object.values(bin)[0]);
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) {
        child.stderr!.off("data", onData);
        resolve(match);
      }
    };
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`process exited (${code}) before printing ${pattern}: ${seen.slice(-500)}`)));
  });
}

await main();
