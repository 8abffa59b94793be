/**
 * Gateway benchmark: search latency through `toolsearch mcp` over stdio with the 12.2k-tool scale catalog, measured
 * from an MCP client (the SDK's Client) as one `search_tools` call, next to the same search in-process in one run, so
 * the ratio is what the MCP hop (JSON-RPC over pipes, result shaping with input schemas) costs; a ping over the same
 * connection gives the floor of one round trip.
 *
 *   npm run bench:gateway               # table
 *   npm run bench:gateway -- --json     # one JSON object
 *
 * Options: --catalog FILE, --queries FILE, --max-queries N (default 300), --limit N (default 5), --warmup N (20).
 */
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { table } from "../src/cli/output.js";
import { loadQueries } from "../src/eval/queries.js";
import { ndcgAt, percentile } from "../src/eval/metrics.js";
import { ToolIndex } from "../src/indexes/tool-index.js";

const { values } = parseArgs({
  options: {
    catalog: { type: "string", default: "../shared/data/scale/catalog.json" },
    queries: { type: "string", default: "../shared/data/scale/queries.jsonl" },
    "max-queries": { type: "string", default: "300" },
    limit: { type: "string", default: "5" },
    warmup: { type: "string", default: "20" },
    json: { type: "boolean", default: false },
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

async function main(): Promise<void> {
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
  if (values.json) {
    process.stdout.write(`${JSON.stringify(output)}\n`);
    return;
  }
  const rows = Object.entries(systems).map(([name, s]) => [name, s.build_ms.toFixed(0), s.p50_ms.toFixed(3), s.p99_ms.toFixed(3), String(s["ndcg@10"] ?? "-")]);
  const [a, b] = Object.values(systems);
  process.stdout.write(`${output.tools} tools, ${output.queries} queries, limit ${limit} (build_ms: index build in-process; gateway start to first tools/list)\n`);
  process.stdout.write(`${table(["system", "build_ms", "p50_ms", "p99_ms", "ndcg@10"], rows).join("\n")}\n`);
  process.stdout.write(`gateway / in-process: p50 ×${(b.p50_ms / a.p50_ms).toFixed(2)}, p99 ×${(b.p99_ms / a.p99_ms).toFixed(2)}\n`);
}

await main();
