/**
 * The `screen` part of bench:gateway: what result screening (SPEC §16) costs per call. One gateway in front of two
 * blocks of the same real stdio upstream (test/fixtures/mcp/result-server.mjs), one with `"screenResults": "off"`
 * and one with `"warn"`, called in turns from one SDK client in the same run, so the machine's noise hits both alike.
 * The payloads are the honest screening corpus (112 results, 20–400 characters) and a 64 KB page; the detectors'
 * own time per result is measured in-process beside it (warm, best of 5 rounds).
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { percentile } from "../src/eval/metrics.js";
import { parseGatewayConfig } from "../src/mcp/config.js";
import { Gateway } from "../src/mcp/gateway.js";
import { screenText } from "../src/trust/screen.js";
import { HONEST_RESULTS } from "../test/fixtures/screen-corpus/honest.js";

const SERVER = fileURLToPath(new URL("../test/fixtures/mcp/result-server.mjs", import.meta.url));

export interface ScreenPartResult {
  calls_per_mode: number;
  off_p50_ms: number;
  warn_p50_ms: number;
  off_p99_ms: number;
  warn_p99_ms: number;
  warn_over_off_p50: number;
  detectors_us_per_result: number;
  detectors_us_per_64kb_page: number;
}

const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

/**
 * A long honest page: the corpus repeated to 64 KB (a fetched article or a log dump). Only the results screening
 * passes go in, so that every detector reads the whole page (one flagged sentence would stop them early).
 */
function longPage(): string {
  const passing = HONEST_RESULTS.filter((text) => screenText(text).length === 0);
  let page = "";
  for (let i = 0; page.length < 65_536; i++) page += `${passing[i % passing.length]}\n\n`;
  return page.slice(0, 65_536);
}

export async function benchScreen(rounds = 5): Promise<ScreenPartResult> {
  const block = (mode: string) => ({ command: process.execPath, args: [SERVER], screenResults: mode });
  const gateway = await Gateway.start({ config: parseGatewayConfig({ mcpServers: { plain: block("off"), screened: block("warn") } }) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.createSession().connect(serverSide);
  const client = new Client({ name: "bench-screen", version: "1.0.0" });
  await client.connect(clientSide);
  const payloads = [...HONEST_RESULTS, longPage()];
  const times: Record<"off" | "warn", number[]> = { off: [], warn: [] };
  const call = async (server: string, text: string) => {
    const started = performance.now();
    await client.callTool({ name: "call_tool", arguments: { name: `${server}__fetch_page`, arguments: { text } } });
    return performance.now() - started;
  };
  try {
    for (const text of payloads.slice(0, 20)) await Promise.all([call("plain", text), call("screened", text)]); // warm-up
    for (let r = 0; r < rounds; r++) {
      for (const text of payloads) {
        // Alternate which goes first, so neither mode always follows the other.
        if (r % 2 === 0) {
          times.off.push(await call("plain", text));
          times.warn.push(await call("screened", text));
        } else {
          times.warn.push(await call("screened", text));
          times.off.push(await call("plain", text));
        }
      }
    }
  } finally {
    await client.close();
    await gateway.close();
  }
  // The detectors alone: warm (one pass first compiles the patterns), best of 5 rounds, so other jobs' noise is left out.
  const page = longPage();
  const best = (work: () => void, reps: number) => {
    work();
    let fastest = Infinity;
    for (let round = 0; round < 5; round++) {
      const started = performance.now();
      for (let i = 0; i < reps; i++) work();
      fastest = Math.min(fastest, (performance.now() - started) / reps);
    }
    return fastest * 1000;
  };
  const perResult = best(() => HONEST_RESULTS.forEach((text) => screenText(text)), 5) / HONEST_RESULTS.length;
  const perPage = best(() => screenText(page), 5);
  const p50 = (xs: number[]) => percentile(xs, 0.5);
  return {
    calls_per_mode: times.off.length,
    off_p50_ms: round(p50(times.off)),
    warn_p50_ms: round(p50(times.warn)),
    off_p99_ms: round(percentile(times.off, 0.99)),
    warn_p99_ms: round(percentile(times.warn, 0.99)),
    warn_over_off_p50: round(p50(times.warn) / p50(times.off), 2),
    detectors_us_per_result: round(perResult, 1),
    detectors_us_per_64kb_page: round(perPage, 0),
  };
}
