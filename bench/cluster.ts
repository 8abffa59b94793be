/**
 * Cluster benchmark: N `toolsearch serve` replicas (default 3) on one throwaway PostgreSQL, autocannon (in a child
 * process, bench/cluster-load.ts) spreading searches across them while a writer upserts tools through them in turn.
 * Reports searches/s in total and per replica, p50/p99, how long a write takes to become searchable on the other
 * replicas (propagation lag p50/p99), errors, and each replica's RSS before the soak, a quarter into it ("start", once writes have been served too) and
 * at its end.
 *
 *   npm run bench:cluster                      # 2-minute soak, table
 *   npm run bench:cluster -- --minutes 10 --json
 *
 * Before the soak, the same searches go to one replica alone (all connections, no writer), then to every replica
 * without the writer, for --baseline-s each: baselines measured in the same run on the same machine.
 *
 * Options: --minutes N (2), --replicas N (3), --connections N per replica (4), --write-every-ms N (250),
 * --warmup-s N (15), --baseline-s N (20), --catalog FILE, --queries FILE.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import type autocannon from "autocannon";
import { table } from "../src/cli/output.js";
import { percentile } from "../src/eval/metrics.js";
import { startPostgres } from "../test/helpers/postgres.js";
import { call, type Replica, startReplica, waitFor } from "../test/helpers/replicas.js";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "2" },
    replicas: { type: "string", default: "3" },
    connections: { type: "string", default: "4" },
    "write-every-ms": { type: "string", default: "250" },
    "warmup-s": { type: "string", default: "15" },
    "baseline-s": { type: "string", default: "20" },
    catalog: { type: "string", default: "../shared/data/stabletoolbench/catalog.json" },
    queries: { type: "string", default: "../shared/data/stabletoolbench/queries.jsonl" },
    json: { type: "boolean", default: false },
  },
});

const minutes = Number(values.minutes);
const replicaCount = Number(values.replicas);
const connections = Number(values.connections);
const writeEveryMs = Number(values["write-every-ms"]);
const warmupS = Number(values["warmup-s"]);
const COLLECTION = "bench";
const LOADER = fileURLToPath(new URL("./cluster-load.ts", import.meta.url));
const run = promisify(execFile);
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const say = (line: string) => values.json || process.stderr.write(`${line}\n`);

/** A word the analyzer keeps whole and no catalog contains: letters only, from a counter. */
function markerWord(n: number): string {
  let word = "";
  for (let v = n + 26 * 26; v > 0; v = Math.floor(v / 26)) word += String.fromCharCode(97 + (v % 26));
  return `zq${word}xv`;
}

const tools = JSON.parse(readFileSync(values.catalog!, "utf8"));
const catalog: unknown[] = Array.isArray(tools) ? tools : tools.tools;
const server = await startPostgres();
const replicas: Replica[] = [];
try {
  const url = await server.createDatabase();
  say(`PostgreSQL up; starting ${replicaCount} replicas…`);
  for (let i = 0; i < replicaCount; i++) replicas.push(await startReplica(["--store", url, "--no-auth", "--rate-limit", "0", "--log", "error"]));
  for (const r of replicas) await waitFor(async () => (await call(r.url, "GET", "/readyz")).status === 200, "readyz", 60_000, 50);

  const put = await call(replicas[0].url, "PUT", `/v1/collections/${COLLECTION}`, { kind: "tools", tools: catalog });
  if (put.status >= 300) throw new Error(`seeding failed: ${put.status} ${JSON.stringify(put.body)}`);
  const seedLag = await Promise.all(
    replicas.map((r) => waitFor(async () => (await call(r.url, "GET", `/v1/collections/${COLLECTION}`)).body?.size === catalog.length, "the catalog on every replica", 120_000, 20)),
  );
  say(`catalog of ${catalog.length} tools on every replica (slowest after ${Math.round(Math.max(...seedLag))} ms)`);

  // The writer: upserts one of 20 tools in turn through each replica, with a new marker word, and measures how long
  // until every other replica's search finds it. Reusing 20 names keeps the catalog's size steady for the RSS figures.
  const lags: number[] = [];
  const writer = { writes: 0, errors: 0, lagTimeouts: 0, stop: false, lastError: "" };
  const writeLoop = async () => {
    for (let n = 0; !writer.stop; n++) {
      const started = performance.now();
      const via = replicas[n % replicas.length];
      const word = markerWord(n);
      const name = `bench_writer_${n % 20}`;
      const tool = { name, description: `Benchmark tool number ${n % 20}, marker ${word}.`, input_schema: { type: "object", properties: {} } };
      try {
        const answer = await call(via.url, "PUT", `/v1/collections/${COLLECTION}/tools/${name}`, tool);
        if (answer.status >= 300) throw new Error(`${answer.status} ${JSON.stringify(answer.body)}`);
        writer.writes++;
        const acked = performance.now();
        await Promise.all(
          replicas
            .filter((r) => r !== via)
            .map(async (r) => {
              try {
                await waitFor(async () => (await call(r.url, "POST", `/v1/collections/${COLLECTION}/search`, { query: word, limit: 1 })).body?.results?.[0]?.name === name, "propagation", 10_000, 5);
                lags.push(performance.now() - acked);
              } catch {
                writer.lagTimeouts++;
              }
            }),
        );
      } catch (error) {
        writer.errors++;
        writer.lastError = (error as Error).message;
      }
      const rest = writeEveryMs - (performance.now() - started);
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
  };

  const load = async (seconds: number, targets = replicas, perTarget = connections): Promise<autocannon.Result[]> => {
    const urls = targets.map((r) => `${r.url}/v1/collections/${COLLECTION}/search`).join(",");
    const args = ["--import", "tsx", LOADER, "--urls", urls, "--seconds", String(seconds), "--connections", String(perTarget), "--queries", values.queries!];
    const { stdout } = await run(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
    return JSON.parse(stdout) as autocannon.Result[];
  };

  say(`warm-up ${warmupS} s…`);
  await load(warmupS);
  const baselineS = Number(values["baseline-s"]);
  say(`baseline: one replica alone, ${connections * replicas.length} connections, ${baselineS} s…`);
  const [alone] = await load(baselineS, [replicas[0]], connections * replicas.length);
  say(`every replica, no writer, ${baselineS} s…`);
  const readsOnly = await load(baselineS);
  const rssBefore = replicas.map((r) => r.rssMb());
  const load0 = loadavg()[0];
  say(`soak ${minutes} min: ${connections} connections per replica, a write every ${writeEveryMs} ms…`);
  const writing = writeLoop();
  // "Start" of the soak for memory is a quarter into it: every replica has then served writes too and its heap has
  // settled after the uneven warm-up (replica 1 alone served the baseline); growth from there on is what leaks.
  let rssStart = rssBefore;
  const settle = setTimeout(() => (rssStart = replicas.map((r) => r.rssMb())), minutes * 60_000 / 4);
  const results = await load(Math.round(minutes * 60));
  clearTimeout(settle);
  writer.stop = true;
  await writing;
  const rssEnd = replicas.map((r) => r.rssMb());

  const perReplica = results.map((res, i) => ({
    replica: i + 1,
    searches_per_s: round(res.requests.average),
    p50_ms: res.latency.p50,
    p99_ms: res.latency.p99,
    errors: res.errors + res.timeouts + res.non2xx,
    statuses: Object.fromEntries(Object.entries(res.statusCodeStats ?? {}).map(([code, stat]) => [code, (stat as { count: number }).count])),
    rss_before_soak_mb: round(rssBefore[i]),
    rss_start_mb: round(rssStart[i]),
    rss_end_mb: round(rssEnd[i]),
    rss_growth_pct: round(((rssEnd[i] - rssStart[i]) / rssStart[i]) * 100),
  }));
  const sorted = [...lags].sort((a, b) => a - b);
  const report = {
    replicas: replicaCount,
    tools: catalog.length,
    minutes,
    machine: { cores: availableParallelism(), load_1m_before: round(load0, 2), load_1m_after: round(loadavg()[0], 2) },
    searches_per_s: round(perReplica.reduce((sum, r) => sum + r.searches_per_s, 0)),
    one_replica_alone: { searches_per_s: round(alone.requests.average), p50_ms: alone.latency.p50, p99_ms: alone.latency.p99 },
    all_replicas_no_writer: { searches_per_s: round(readsOnly.reduce((sum, r) => sum + r.requests.average, 0)) },
    per_replica: perReplica,
    writes: writer.writes,
    lag_ms: { p50: round(percentile(sorted, 0.5)), p99: round(percentile(sorted, 0.99)), max: round(sorted.at(-1) ?? 0), samples: sorted.length },
    errors: perReplica.reduce((sum, r) => sum + r.errors, 0) + writer.errors + writer.lagTimeouts,
    writer_errors: writer.errors,
    lag_timeouts: writer.lagTimeouts,
    ...(writer.lastError ? { last_writer_error: writer.lastError } : {}),
  };
  const ratio = round(report.searches_per_s / Math.max(report.one_replica_alone.searches_per_s, 1e-9), 2);
  if (values.json) process.stdout.write(`${JSON.stringify({ ...report, ratio_to_one_replica: ratio })}\n`);
  else {
    process.stdout.write(
      `${table(
        ["replica", "searches/s", "p50 ms", "p99 ms", "errors", "RSS start MB", "RSS end MB", "growth %"],
        perReplica.map((r) => [r.replica, r.searches_per_s, r.p50_ms, r.p99_ms, r.errors, r.rss_start_mb, r.rss_end_mb, r.rss_growth_pct].map(String)),
      ).join("\n")}\n`,
    );
    process.stdout.write(
      `total ${report.searches_per_s} searches/s (${ratio}× one replica alone: ${report.one_replica_alone.searches_per_s}/s, p50 ${report.one_replica_alone.p50_ms} ms; ` +
        `all replicas without the writer: ${report.all_replicas_no_writer.searches_per_s}/s); ${report.writes} writes; propagation lag p50 ${report.lag_ms.p50} ms, p99 ${report.lag_ms.p99} ms ` +
        `(max ${report.lag_ms.max}, ${report.lag_ms.samples} samples); errors ${report.errors}; ` +
        `${report.machine.cores} cores, load ${report.machine.load_1m_before} → ${report.machine.load_1m_after}\n`,
    );
    if (report.errors > 0) {
      process.stdout.write(`status codes per replica: ${JSON.stringify(perReplica.map((r) => r.statuses))}; writer errors ${writer.errors}, lag timeouts ${writer.lagTimeouts} ${writer.lastError}\n`);
    }
  }
} finally {
  await Promise.all(replicas.map((r) => r.kill("SIGTERM")));
  await server.destroy();
}
