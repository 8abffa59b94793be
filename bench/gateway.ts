/**
 * Gateway benchmark: search latency through `toolsearch mcp` over stdio with the 12.2k-tool scale catalog, measured
 * from an MCP client (the SDK's Client) as one `search_tools` call, next to the same search in-process in one run, so
 * the ratio is what the MCP hop (JSON-RPC over pipes, result shaping with input schemas) costs; a ping over the same
 * connection gives the floor of one round trip.
 *
 * `screen` (screen.ts): the cost per call of result screening, `"screenResults": "off"` against `"warn"` in one run.
 *
 * Two more parts (gateway-fleet.ts): `servers`, the gateway in front of --servers N stdio servers (launch to first
 * search eager vs from manifests, idle RSS, first call to a stopped server), and `sessions`, --sessions N HTTP sessions
 * opened and abandoned (RSS and search throughput before and after, with the default limits and without them).
 *
 *   npm run bench:gateway                               # every part, tables
 *   npm run bench:gateway -- --part servers --json      # one part, one JSON object
 *
 * Options: --catalog FILE, --queries FILE, --max-queries N (default 300), --limit N (default 5), --warmup N (20),
 * --part latency|servers|sessions|screen|all (all), --servers N (30), --runs N (3, launches per figure), --sessions N (10000),
 * --sessions-catalog FILE and --sessions-queries FILE (the 199-tool MetaTool set: about what 30 servers offer),
 * --built (latency and sessions: run the gateway from dist/, after `npm run build`, instead of the sources through tsx),
 * --modes built,tsx (servers: how the gateway runs in its launches; both by default, so dist/ must be built first).
 */
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { table } from "../src/cli/output.js";
import { loadQueries } from "../src/eval/queries.js";
import { ndcgAt, percentile } from "../src/eval/metrics.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import { benchServers, benchSessions, cliArgs, type LaunchMode } from "./gateway-fleet.js";
import { benchScreen } from "./screen.js";

const { values } = parseArgs({
  options: {
    catalog: { type: "string", default: "../shared/data/scale/catalog.json" },
    queries: { type: "string", default: "../shared/data/scale/queries.jsonl" },
    "max-queries": { type: "string", default: "300" },
    limit: { type: "string", default: "5" },
    warmup: { type: "string", default: "20" },
    json: { type: "boolean", default: false },
    part: { type: "string", default: "all" },
    built: { type: "boolean", default: false },
    modes: { type: "string", default: "built,tsx" },
    servers: { type: "string", default: "30" },
    runs: { type: "string", default: "3" },
    sessions: { type: "string", default: "10000" },
    "sessions-catalog": { type: "string", default: "../shared/data/metatool/catalog.json" },
    "sessions-queries": { type: "string", default: "../shared/data/metatool/queries.jsonl" },
  },
});

const limit = Number(values.limit);
const round = (n: number) => Math.round(n * 1000) / 1000;

interface SystemResult {
  build_ms: number;
  p50_ms: number;
  p99_ms: number;
  "ndcg@10"?: number;
}

/** Times `search` over the queries after a warm-up; returns per-call latencies and the ranked names. */
async function measure(queries: { query: string }[], warmup: number, search: (q: string) => Promise<string[]>) {
  for (const { query } of queries.slice(0, warmup)) await search(query);
  const latencies: number[] = [];
  const ranked: string[][] = [];
  for (const { query } of queries) {
    const start = performance.now();
    ranked.push(await search(query));
    latencies.push(performance.now() - start);
  }
  return { latencies, ranked };
}

async function latencyPart(): Promise<Record<string, unknown>> {
  const buildStart = performance.now();
  const index = await ToolIndex.fromFile(values.catalog!);
  const inProcessBuild = performance.now() - buildStart;
  const queries = loadQueries(values.queries!, (name) => index.get(name) !== undefined).slice(0, Number(values["max-queries"]));
  const warmup = Number(values.warmup);
  const quality = (ranked: string[][]) => round(ranked.reduce((sum, names, i) => sum + ndcgAt(10, names, new Set(queries[i].relevant)), 0) / ranked.length);

  const local = await measure(queries, warmup, async (q) => (await index.search(q, { limit })).map((h) => h.name));

  // The gateway as a client sees it: a child process started with the catalog, then one tools/call per search.
  const connectStart = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", "src/cli/main.ts", "mcp", "--catalog", values.catalog!],
    stderr: "ignore",
  });
  const client = new Client({ name: "bench-gateway", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  const gatewayStart = performance.now() - connectStart;
  const gateway = await measure(queries, warmup, async (query) => {
    const result = await client.callTool({ name: "search_tools", arguments: { query, limit } });
    const text = (result.content as { type: string; text: string }[])[0].text;
    return text.startsWith("{") ? (JSON.parse(text) as { results: { name: string }[] }).results.map((r) => r.name) : [];
  });
  // The floor of one MCP round trip over the same pipes: a ping, which does no work at all.
  const floor = await measure(queries, warmup, async () => {
    await client.ping();
    return [];
  });
  await client.close();

  const systems: Record<string, SystemResult> = {
    "toolsearch-bm25 (in-process)": { build_ms: round(inProcessBuild), p50_ms: round(percentile(local.latencies, 0.5)), p99_ms: round(percentile(local.latencies, 0.99)), "ndcg@10": quality(local.ranked) },
    "gateway-stdio (search_tools)": { build_ms: round(gatewayStart), p50_ms: round(percentile(gateway.latencies, 0.5)), p99_ms: round(percentile(gateway.latencies, 0.99)), "ndcg@10": quality(gateway.ranked) },
    "gateway-stdio (ping round trip)": { build_ms: round(gatewayStart), p50_ms: round(percentile(floor.latencies, 0.5)), p99_ms: round(percentile(floor.latencies, 0.99)) },
  };
  const output = { catalog: values.catalog, tools: index.size, queries: queries.length, limit, systems };
  if (values.json) return output;
  const rows = Object.entries(systems).map(([name, s]) => [name, s.build_ms.toFixed(0), s.p50_ms.toFixed(3), s.p99_ms.toFixed(3), String(s["ndcg@10"] ?? "-")]);
  const [a, b] = Object.values(systems);
  process.stdout.write(`${output.tools} tools, ${output.queries} queries, limit ${limit} (build_ms: index build in-process; gateway start to first tools/list)\n`);
  process.stdout.write(`${table(["system", "build_ms", "p50_ms", "p99_ms", "ndcg@10"], rows).join("\n")}\n`);
  process.stdout.write(`gateway / in-process: p50 ×${(b.p50_ms / a.p50_ms).toFixed(2)}, p99 ×${(b.p99_ms / a.p99_ms).toFixed(2)}\n`);
  return output;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

async function serversPart(): Promise<Record<string, unknown>> {
  const modes = values.modes!.split(",").map((m) => m.trim()) as LaunchMode[];
  if (!modes.length || modes.some((m) => m !== "built" && m !== "tsx")) throw new Error(`--modes takes built, tsx or both (got ${values.modes})`);
  const r = await benchServers(modes, Number(values.servers), Number(values.runs), log);
  if (!values.json) {
    const labels = ["none", ...Object.keys(r.lazy_in_process_ms)];
    const how = { built: "from dist/ (npm run build)", tsx: "from the sources through tsx" } as const;
    process.stdout.write([
      `\n${r.servers} stdio servers; launch = spawn to first search_tools answer, median of ${r.runs}; load average ${r.load_average[0]} → ${r.load_average[1]}`,
      `node -e 0 (spawn to exit, the floor of any node process here): ${r.node_floor_ms} ms`,
      ...table(["gateway run", ...labels.map((l) => (l === "none" ? "no server: ms (cpu)" : `${l} from manifests: ms (cpu)`))],
        modes.map((mode) => [how[mode], ...labels.map((l) => `${r.launch[mode]![l].ms} (${r.launch[mode]![l].cpu_ms})`)])),
      `first launch with a set of servers (${modes[0]}; builds the index and stores the launch snapshot): ${Object.entries(r.first_launch).map(([k, f]) => `${k}: ${f.ms} ms (cpu ${f.cpu_ms})`).join(", ")}`,
      `in-process Gateway.start from manifests → first search answer, by servers configured (ms): ${Object.entries(r.lazy_in_process_ms).map(([k, ms]) => `${k}: ${ms}`).join(", ")}`,
      ...table(["", "launch ms", "idle RSS MB (gateway + children)", "processes"], [
        [`eager (${r.eager_mode})`, String(r.eager_launch_ms), String(r.eager_idle_rss_mb), String(r.eager_children + 1)],
        [`from manifests (${r.eager_mode})`, String(r.launch[r.eager_mode]![String(r.servers)].ms), String(r.lazy_idle_rss_mb), String(r.lazy_children + 1)],
      ]),
      `eager: ${r.eager_ready_at_first_answer} of ${r.servers} servers were ready when the first search answered (the others missed their first attempt and came up on a restart)`,
      `first call to a stopped server (start + call): p50 ${r.first_call_p50_ms} ms, p90 ${r.first_call_p90_ms} ms; warm call p50 ${r.warm_call_p50_ms} ms`,
      "",
      "",
    ].join("\n"));
  }
  return r as unknown as Record<string, unknown>;
}

async function sessionsPart(): Promise<Record<string, unknown>[]> {
  const catalog = values["sessions-catalog"]!;
  const index = await ToolIndex.fromFile(catalog);
  const queries = loadQueries(values["sessions-queries"]!, (name) => index.get(name) !== undefined).slice(0, Number(values["max-queries"])).map((q) => q.query);
  const results = await benchSessions(cliArgs(values.built!), Number(values.sessions), catalog, queries, log);
  if (!values.json) {
    process.stdout.write([
      `\n${values.sessions} HTTP sessions opened and abandoned, ${index.size}-tool catalog (search throughput: search_tools from one session, 4 in flight, best of 3 rounds of 1000)`,
      ...table(["gateway", "limits", "accepted", "503", "RSS before MB", "RSS after MB", "growth MB", "heap growth MB (after GC)", "search/s before", "search/s after", "after/before"], results.map((r) => [
        r.gateway, r.limits, String(r.accepted), String(r.refused_503), String(r.rss_before_mb), String(r.rss_after_mb), (r.rss_after_mb - r.rss_before_mb).toFixed(1),
        r.heap_after_mb === undefined ? "-" : (r.heap_after_mb - r.heap_before_mb!).toFixed(1), String(r.search_per_s_before), String(r.search_per_s_after), (r.search_per_s_after / r.search_per_s_before).toFixed(2),
      ])),
      "",
    ].join("\n"));
  }
  return results as unknown as Record<string, unknown>[];
}

async function screenPart(): Promise<Record<string, unknown>> {
  const r = await benchScreen(Number(values.runs));
  if (!values.json) {
    process.stdout.write([
      `\nresult screening: one gateway, one stdio upstream as two blocks ("screenResults" off and warn), ${r.calls_per_mode} call_tool calls per mode in turns (112 honest results + a 64 KB page)`,
      ...table(["mode", "p50 ms", "p99 ms"], [["off", String(r.off_p50_ms), String(r.off_p99_ms)], ["warn", String(r.warn_p50_ms), String(r.warn_p99_ms)]]),
      `warn/off p50: ${r.warn_over_off_p50}; detectors in-process: ${r.detectors_us_per_result} µs per honest result, ${r.detectors_us_per_64kb_page} µs per 64 KB page`,
      "",
    ].join("\n"));
  }
  return r as unknown as Record<string, unknown>;
}

async function main(): Promise<void> {
  const part = values.part!;
  if (!["all", "latency", "servers", "sessions", "screen"].includes(part)) throw new Error(`--part must be latency, servers, sessions, screen or all (got ${part})`);
  const output: Record<string, unknown> = {};
  if (part === "all" || part === "latency") output.latency = await latencyPart();
  if (part === "all" || part === "servers") output.servers = await serversPart();
  if (part === "all" || part === "sessions") output.sessions = await sessionsPart();
  if (part === "all" || part === "screen") output.screen = await screenPart();
  if (values.json) process.stdout.write(`${JSON.stringify(output)}\n`);
}

await main();
