/**
 * `npm run bench`: every benchmark suite, one after the other, each in its own process so that one suite's heap and
 * JIT state do not colour the next.
 *
 *   npm run bench                          # each suite prints its table
 *   npm run bench -- --json                # one JSON object: the tools suite (SPEC §8) plus `suites: {name: …}`
 *   npm run bench -- --suites tools,lint   # a subset
 *
 * Suites: tools (SPEC §8, peers MiniSearch and Orama), documents (100k passages vs MiniSearch), embeddings
 * (throughput, query embedding, semantic/hybrid search cost), gateway (search through the MCP gateway over stdio),
 * lint (lint time on the shared data sets). Arguments after `--` other than these two go to the tools suite.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const SUITES = ["tools", "documents", "embeddings", "gateway", "lint"];

const args = process.argv.slice(2);
const json = args.includes("--json");
const at = args.indexOf("--suites");
const chosen = at >= 0 ? (args[at + 1] ?? "").split(",").filter(Boolean) : SUITES;
const unknown = chosen.filter((s) => !SUITES.includes(s));
if (unknown.length) {
  process.stderr.write(`bench: unknown suite ${unknown.join(", ")}; suites are ${SUITES.join(", ")}\n`);
  process.exit(2);
}
const toolArgs = args.filter((a, i) => a !== "--json" && a !== "--suites" && !(at >= 0 && i === at + 1));

function runSuite(suite: string): unknown {
  const script = fileURLToPath(new URL(`./${suite}.ts`, import.meta.url));
  const suiteArgs = [...(suite === "tools" ? toolArgs : []), ...(json ? ["--json"] : [])];
  if (!json) process.stdout.write(`\n== ${suite} ==\n`);
  const result = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", script, ...suiteArgs], {
    stdio: json ? ["ignore", "pipe", "inherit"] : "inherit",
    encoding: "utf8",
    maxBuffer: 64 * 2 ** 20,
  });
  if (result.status !== 0) throw new Error(`bench suite ${suite} failed with exit code ${result.status}`);
  return json ? JSON.parse(result.stdout) : undefined;
}

const results: Record<string, unknown> = {};
for (const suite of chosen) results[suite] = runSuite(suite);
if (json) {
  const { tools, ...suites } = results;
  process.stdout.write(`${JSON.stringify({ ...(tools as object), suites }, null, 2)}\n`);
}
