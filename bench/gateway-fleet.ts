/**
 * The gateway in front of many servers, and under many HTTP sessions (the `servers` and `sessions` parts of
 * `npm run bench:gateway`). Every figure comes with its peer from the same run: eager next to manifests, the lazy
 * launch next to a gateway with no server at all (the floor: node, tsx and the CLI starting), sessions before next to
 * after.
 *
 * servers: N stdio servers (copies of our fixture server, server-memory and server-filesystem, under distinct names).
 *   An eager run starts them all and stores their manifests; lazy runs then start from those manifests with 1, 10 and N
 *   servers configured, and with none, both from the build (what users run) and from the sources through tsx, next
 *   to `node -e 0` (the floor of any node process on this machine). Reported: launch → first `search_tools` answer
 *   (wall median of `runs`, and the CPU the gateway used until then), RSS of the gateway and all its descendants at
 *   idle, and the first call to each stopped server (start + call) against a second, warm call.
 * sessions: `toolsearch mcp --http` with default session limits; search throughput from one session, then `count`
 *   sessions opened (initialize) and abandoned, then RSS and throughput again; the same with limits lifted
 *   (`--max-sessions` huge, `--session-idle 0`) to show what the limits prevent.
 */
import { execFileSync, spawn } from "node:child_process";
import { setMaxListeners } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { percentile } from "../src/eval/metrics.js";
import { parseGatewayConfig } from "../src/mcp/config.js";
import { Gateway } from "../src/mcp/gateway.js";
import { serveHttp } from "../src/mcp/transports.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import { SqliteStore } from "../src/store/sqlite.js";

const require = createRequire(import.meta.url);
const ROOT = join(dirname(new URL(import.meta.url).pathname), "..");
/** How to run the CLI: from the sources through tsx (default), or the build (`npm run build`, then `--built`). */
export function cliArgs(built: boolean): string[] {
  const main = join(ROOT, "dist", "cli", "main.js");
  if (built && !existsSync(main)) throw new Error(`${main} is missing: run npm run build first`);
  return built ? [main] : ["--import", "tsx", join(ROOT, "src", "cli", "main.ts")];
}
const FIXTURE_SERVER = join(ROOT, "test", "fixtures", "mcp", "fixture-server.mjs");
const SMALL_CATALOG = join(ROOT, "test", "fixtures", "mcp", "catalog.json");

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const median = (xs: number[]) => percentile(xs, 0.5);

function serverScript(pkg: string): string {
  const manifest = require.resolve(`@modelcontextprotocol/${pkg}/package.json`);
  const bin = (require(manifest) as { bin: Record<string, string> }).bin;
  return join(dirname(manifest), Object.values(bin)[0]);
}

/** RSS in MB of a process and all its descendants (from /proc). */
export function treeRssMb(pid: number): number {
  const kb = (p: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
  let total = 0;
  const queue = [pid];
  while (queue.length) {
    const p = queue.pop()!;
    try {
      total += kb(p);
    } catch {
      continue; // gone meanwhile
    }
    let out = "";
    try {
      out = execFileSync("ps", ["-o", "pid=", "--ppid", String(p)], { encoding: "utf8" });
    } catch {
      out = "";
    }
    queue.push(...out.split("\n").map((l) => Number(l.trim())).filter(Boolean));
  }
  return total / 1024;
}

function descendants(pid: number): number {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" }).split("\n").filter((l) => l.trim()).length;
  } catch {
    return 0;
  }
}

interface Fleet {
  names: string[];
  config: Record<string, unknown>;
  /** A cheap tool of each server, to call. */
  probe: Record<string, { tool: string; arguments: Record<string, unknown> }>;
}

function fleet(count: number, dir: string): Fleet {
  const kinds = [
    { kind: "fixture", block: () => ({ command: process.execPath, args: [FIXTURE_SERVER] }), tool: "ping", arguments: {} },
    { kind: "memory", block: (name: string) => ({ command: process.execPath, args: [serverScript("server-memory")], env: { MEMORY_FILE_PATH: join(dir, `${name}.jsonl`) } }), tool: "read_graph", arguments: {} },
    { kind: "files", block: () => ({ command: process.execPath, args: [serverScript("server-filesystem"), dir] }), tool: "list_allowed_directories", arguments: {} },
  ];
  const names: string[] = [];
  const config: Record<string, unknown> = {};
  const probe: Fleet["probe"] = {};
  for (let i = 0; i < count; i++) {
    const kind = kinds[i % kinds.length];
    const name = `${kind.kind}-${String(i + 1).padStart(2, "0")}`;
    names.push(name);
    config[name] = kind.block(name);
    probe[name] = { tool: `${name}__${kind.tool}`, arguments: kind.arguments };
  }
  return { names, config, probe };
}

/** CPU time (user + system) a live process has used so far, in ms, from /proc (Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
  // After the command name: utime and stime are fields 14 and 15 of stat(5), here 11 and 12 (0-based), in clock ticks.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** Spawns the gateway over stdio and times spawn → first `search_tools` answer; `cpu_ms` is what the gateway used until then. */
async function launch(cli: string[], args: string[]): Promise<{ client: Client; pid: number; ms: number; cpuMs: number }> {
  const start = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: [...cli, "mcp", ...args], cwd: ROOT, stderr: "ignore" });
  const client = new Client({ name: "bench-fleet", version: "1.0.0" });
  await client.connect(transport);
  await client.callTool({ name: "search_tools", arguments: { query: "read graph entities" } });
  const ms = performance.now() - start;
  return { client, pid: transport.pid!, ms, cpuMs: cpuMs(transport.pid!) };
}

/** Spawn → exit of `node -e 0`: what any node process costs on this machine, the floor under every launch. */
async function nodeFloor(): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return performance.now() - start;
}

async function settle(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** How the gateway runs: the build (`npm run build`: what users run) and the sources through tsx (development). */
export type LaunchMode = "built" | "tsx";

/** Median launch figures of one way of running the gateway, by configuration: `none` (a 2-tool catalog, no server) and servers configured. */
export type LaunchFigures = Record<string, { ms: number; cpu_ms: number }>;

export interface ServersResult {
  servers: number;
  runs: number;
  /** 1-minute load average when the part started and ended. */
  load_average: [number, number];
  /** `node -e 0`, spawn to exit (median): the floor of any node process here. */
  node_floor_ms: number;
  /** Launch → first answer from manifests (and with no server), by mode and by servers configured (medians). */
  launch: Partial<Record<LaunchMode, LaunchFigures>>;
  /** The first launch with each set of servers (first mode), which builds the index and stores the launch snapshot. */
  first_launch: LaunchFigures;
  eager_mode: LaunchMode;
  eager_launch_ms: number;
  /** Servers ready (manifest stored) when the first eager search answered; the rest missed their first attempt. */
  eager_ready_at_first_answer: number;
  /** In this process: `Gateway.start` from manifests to the first search answer, by servers configured (median). */
  lazy_in_process_ms: Record<string, number>;
  eager_idle_rss_mb: number;
  lazy_idle_rss_mb: number;
  eager_children: number;
  lazy_children: number;
  first_call_p50_ms: number;
  first_call_p90_ms: number;
  warm_call_p50_ms: number;
}

/**
 * The `servers` part: eager launches store the manifests, then launches from manifests with 1, 10 and `count`
 * servers configured (and with none), in each of `modes`, interleaved run by run so that a change in the machine's
 * load hits every figure alike.
 */
export async function benchServers(modes: LaunchMode[], count: number, runs: number, log: (line: string) => void): Promise<ServersResult> {
  const dir = mkdtempSync(join(tmpdir(), "toolsearch-bench-fleet-"));
  const loadAtStart = loadavg()[0];
  try {
    const store = join(dir, "store.sqlite");
    const { names, config, probe } = fleet(count, dir);
    const configFile = (k: number) => {
      const file = join(dir, `mcp-${k}.json`);
      writeFileSync(file, JSON.stringify({ mcpServers: Object.fromEntries(names.slice(0, k).map((n) => [n, config[n]])) }));
      return file;
    };
    const full = configFile(count);

    const floor: number[] = [];
    for (let r = 0; r < Math.max(5, runs); r++) floor.push(await nodeFloor());
    log(`node -e 0: ${floor.map((m) => m.toFixed(0)).join(", ")} ms`);

    const eagerMode = modes[0];
    const eager: number[] = [];
    let eagerRss = 0;
    let eagerChildren = 0;
    let readyAtFirstAnswer = 0;
    const manifests = new SqliteStore(store);
    const stored = async () => (await Promise.all(names.map((n) => manifests.getManifest("gateway", n)))).filter(Boolean).length;
    for (let r = 0; r < runs; r++) {
      const run = await launch(cliArgs(eagerMode === "built"), ["--config", full, "--store", store, "--eager"]);
      eager.push(run.ms);
      if (r === 0) {
        readyAtFirstAnswer = await stored();
        // On a loaded machine some servers miss the 30 s connect timeout of their first attempt; their restart
        // (with backoff) brings them up, and every manifest must be in before the lazy runs.
        for (let wait = 0; (await stored()) < count && wait < 300; wait++) await settle(1000);
        await settle(3000);
        eagerRss = treeRssMb(run.pid);
        eagerChildren = descendants(run.pid);
      }
      await run.client.close();
      log(`eager ${count} (${eagerMode}): ${run.ms.toFixed(0)} ms`);
    }
    const total = await stored();
    await manifests.close();
    if (total !== count) throw new Error(`only ${total} of ${count} manifests were stored`);

    const sizes = [...new Set([1, Math.min(10, count), count])];
    const inProcess = await inProcessStarts(sizes, names, config, store);
    log(`lazy in-process: ${JSON.stringify(inProcess)}`);

    const configs: [string, string[]][] = [["none", ["--catalog", SMALL_CATALOG]], ...sizes.map((k): [string, string[]] => [String(k), ["--config", configFile(k), "--store", store]])];
    // The first launch with a set of servers builds the index from the manifests and stores its launch snapshot;
    // the launches after it load the snapshot. That first one is timed apart.
    const firstLaunch: Record<string, { ms: number; cpu_ms: number }> = {};
    for (const [label, args] of configs.slice(1)) {
      const run = await launch(cliArgs(modes[0] === "built"), args);
      firstLaunch[label] = { ms: round(run.ms, 0), cpu_ms: round(run.cpuMs, 0) };
      await run.client.close();
      log(`first launch (builds the launch snapshot) ${label}: ${run.ms.toFixed(0)} ms (cpu ${run.cpuMs.toFixed(0)} ms)`);
    }
    const samples = new Map<string, { ms: number[]; cpu: number[] }>();
    for (let r = 0; r < runs; r++) {
      for (const mode of modes) {
        for (const [label, args] of configs) {
          const run = await launch(cliArgs(mode === "built"), args);
          const key = `${mode} ${label}`;
          const sample = samples.get(key) ?? { ms: [], cpu: [] };
          sample.ms.push(run.ms);
          sample.cpu.push(run.cpuMs);
          samples.set(key, sample);
          await run.client.close();
          log(`lazy ${key}: ${run.ms.toFixed(0)} ms (cpu ${run.cpuMs.toFixed(0)} ms)`);
        }
      }
    }
    const launchFigures: ServersResult["launch"] = {};
    for (const mode of modes) {
      launchFigures[mode] = Object.fromEntries(configs.map(([label]) => {
        const sample = samples.get(`${mode} ${label}`)!;
        return [label, { ms: round(median(sample.ms), 0), cpu_ms: round(median(sample.cpu), 0) }];
      }));
    }

    // Idle memory and the first call to each stopped server, from one more launch with every server configured.
    const run = await launch(cliArgs(eagerMode === "built"), ["--config", full, "--store", store]);
    await settle(3000);
    const lazyRss = treeRssMb(run.pid);
    const lazyChildren = descendants(run.pid);
    const firstCalls: number[] = [];
    const warmCalls: number[] = [];
    for (const name of names) {
      const call = async () => {
        const start = performance.now();
        const result = await run.client.callTool({ name: "call_tool", arguments: { name: probe[name].tool, arguments: probe[name].arguments } });
        if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
        return performance.now() - start;
      };
      firstCalls.push(await call());
      warmCalls.push(await call());
    }
    await run.client.close();
    return {
      servers: count,
      runs,
      load_average: [round(loadAtStart, 2), round(loadavg()[0], 2)],
      node_floor_ms: round(median(floor), 0),
      launch: launchFigures,
      first_launch: firstLaunch,
      eager_mode: eagerMode,
      eager_launch_ms: round(median(eager), 0),
      eager_ready_at_first_answer: readyAtFirstAnswer,
      lazy_in_process_ms: inProcess,
      eager_idle_rss_mb: round(eagerRss),
      lazy_idle_rss_mb: round(lazyRss),
      eager_children: eagerChildren,
      lazy_children: lazyChildren,
      first_call_p50_ms: round(percentile(firstCalls, 0.5)),
      first_call_p90_ms: round(percentile(firstCalls, 0.9)),
      warm_call_p50_ms: round(percentile(warmCalls, 0.5), 2),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `Gateway.start` from manifests → first search answer inside this process (median of 5), by servers configured. */
async function inProcessStarts(sizes: number[], names: string[], config: Record<string, unknown>, store: string): Promise<Record<string, number>> {
  const inProcess: Record<string, number> = {};
  const manifestStore = new SqliteStore(store);
  for (const k of sizes) {
    const gatewayConfig = parseGatewayConfig({ mcpServers: Object.fromEntries(names.slice(0, k).map((n) => [n, config[n]])) });
    const times: number[] = [];
    for (let r = 0; r < 5; r++) {
      const start = performance.now();
      const gateway = await Gateway.start({ config: gatewayConfig, manifests: manifestStore, log: () => undefined });
      await gateway.callTool("search_tools", { query: "read graph entities" });
      times.push(performance.now() - start);
      if ([...gateway.upstreams.values()].some((u) => u.starts > 0)) throw new Error("a server started although its manifest matched");
      await gateway.close();
    }
    inProcess[String(k)] = round(median(times), 1);
  }
  await manifestStore.close();
  return inProcess;
}

export interface SessionsResult {
  limits: string;
  /** Where the gateway ran: a child process (RSS read from /proc), or this process (heap after a full GC). */
  gateway: "process" | "in-process";
  opened: number;
  accepted: number;
  refused_503: number;
  rss_before_mb: number;
  rss_after_mb: number;
  search_per_s_before: number;
  search_per_s_after: number;
  /** In-process runs: heap in use after a full collection, before and after. */
  heap_before_mb?: number;
  heap_after_mb?: number;
}

/** A full garbage collection, without starting node with --expose-gc. */
function collect(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/** Starts `toolsearch mcp --http 0` and resolves with its URL and pid. */
async function httpGateway(cli: string[], args: string[]): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [...cli, "mcp", "--http", "0", ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = "";
    child.stderr.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = /listening on (\S+)/.exec(buffer);
      if (match) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`gateway exited with ${code}: ${buffer}`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: () => new Promise((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    }),
  };
}

/**
 * `search_tools` calls per second from one session, `concurrency` at a time, `calls` per round; the best of `rounds`
 * rounds, because on a shared machine a slow round says more about the neighbours than about the gateway.
 */
async function throughput(client: Client, queries: string[], calls: number, concurrency: number, rounds = 1): Promise<number> {
  let best = 0;
  for (let r = 0; r < rounds; r++) best = Math.max(best, await throughputRound(client, queries, calls, concurrency));
  return best;
}

async function throughputRound(client: Client, queries: string[], calls: number, concurrency: number): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < calls) {
      const query = queries[next++ % queries.length];
      await client.callTool({ name: "search_tools", arguments: { query, limit: 5 } });
    }
  }));
  return calls / ((performance.now() - start) / 1000);
}

/** Opens `count` sessions (initialize, never closed), `concurrency` at a time; counts answers by status. */
async function abandonSessions(url: string, count: number, concurrency: number): Promise<{ accepted: number; refused: number }> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "abandoned", version: "1" } } });
  let next = 0;
  let accepted = 0;
  let refused = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < count) {
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body });
      await response.text();
      if (response.status === 200) accepted++;
      else if (response.status === 503) refused++;
      else throw new Error(`initialize answered HTTP ${response.status}`);
    }
  }));
  return { accepted, refused };
}

export async function benchSessions(cli: string[], count: number, catalog: string, queries: string[], log: (line: string) => void): Promise<SessionsResult[]> {
  // The client's fetch adds one abort listener per request to the transport's signal; thousands are expected here.
  setMaxListeners(0);
  const results: SessionsResult[] = [];
  for (const [limits, args] of [["defaults (1000 sessions, 1800 s idle)", []], ["lifted (no cap, no expiry)", ["--max-sessions", "10000000", "--session-idle", "0"]]] as const) {
    const gateway = await httpGateway(cli, ["--catalog", catalog, ...args]);
    const client = new Client({ name: "bench-sessions", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
      await throughput(client, queries, 1000, 4); // warm-up: the first calls run cold code in both processes
      const before = await throughput(client, queries, 1000, 4, 3);
      await settle(1000);
      const rssBefore = treeRssMb(gateway.pid);
      const { accepted, refused } = await abandonSessions(gateway.url, count, 16);
      await settle(2000);
      const rssAfter = treeRssMb(gateway.pid);
      const after = await throughput(client, queries, 1000, 4, 3);
      results.push({ limits, gateway: "process", opened: count, accepted, refused_503: refused, rss_before_mb: round(rssBefore), rss_after_mb: round(rssAfter), search_per_s_before: round(before, 0), search_per_s_after: round(after, 0) });
      log(`sessions, limits ${limits}: ${JSON.stringify(results.at(-1))}`);
    } finally {
      await client.close().catch(() => undefined);
      await gateway.stop();
    }
  }
  results.push(...(await heapRuns(count, catalog, queries, log)));
  return results;
}

/**
 * The same flood against a gateway in this process, where a full collection before each reading leaves only what
 * is really kept: RSS of a child process also counts garbage not yet collected, so it can even fall after the flood.
 */
async function heapRuns(count: number, catalog: string, queries: string[], log: (line: string) => void): Promise<SessionsResult[]> {
  const results: SessionsResult[] = [];
  for (const [limits, options] of [["defaults (1000 sessions, 1800 s idle)", {}], ["lifted (no cap, no expiry)", { maxSessions: 10_000_000, sessionIdleMs: 0 }]] as const) {
    const gateway = await Gateway.start({ catalog: await ToolIndex.fromFile(catalog), log: () => undefined });
    const endpoint = await serveHttp(gateway, { port: 0, ...options });
    const client = new Client({ name: "bench-sessions", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
      await throughput(client, queries, 1000, 4);
      const before = await throughput(client, queries, 1000, 4, 3);
      collect();
      const rssBefore = process.memoryUsage().rss;
      const heapBefore = process.memoryUsage().heapUsed;
      const { accepted, refused } = await abandonSessions(endpoint.url, count, 16);
      await settle(1000);
      collect();
      const rssAfter = process.memoryUsage().rss;
      const heapAfter = process.memoryUsage().heapUsed;
      const after = await throughput(client, queries, 1000, 4, 3);
      const mb = (bytes: number) => round(bytes / 1048576);
      results.push({
        limits, gateway: "in-process", opened: count, accepted, refused_503: refused, rss_before_mb: mb(rssBefore), rss_after_mb: mb(rssAfter),
        search_per_s_before: round(before, 0), search_per_s_after: round(after, 0), heap_before_mb: mb(heapBefore), heap_after_mb: mb(heapAfter),
      });
      log(`sessions in-process, limits ${limits}: ${JSON.stringify(results.at(-1))}`);
    } finally {
      await client.close().catch(() => undefined);
      await endpoint.close();
      await gateway.close();
    }
  }
  return results;
}
