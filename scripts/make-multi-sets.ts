/**
 * Multi-tool variants of the labelled sets in ../shared/data, for measuring tool sets (issue 25): real tools and
 * real queries, reshaped into whole tasks that need several tools. Deterministic (no randomness).
 *
 *   node --import tsx scripts/make-multi-sets.ts [--data ../shared/data] [--out .bench-out/multi]
 *
 * - `<set>-pairs`: each query joined with another query of the same set whose answers differ ("A. Also, B"), the
 *   answers being both queries' answers (metatool every 10th query, toolalpaca, stabletoolbench): long requests that
 *   need two or three tools.
 * - `stabletoolbench-mcp`: StableToolBench with MCP-style names, `<tool>__<api>` (the RapidAPI tool as the server,
 *   from `source_name`), so that the queries, which often need several APIs of one or two tools, are whole tasks
 *   over the tools of one or two servers.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { LabelledQuery } from "../src/eval/queries.js";
import { pairQueries } from "../src/eval/query-pairs.js";

const { values } = parseArgs({ options: { data: { type: "string", default: "../shared/data" }, out: { type: "string", default: ".bench-out/multi" } } });

interface RawTool {
  name: string;
  source_name?: string;
  [key: string]: unknown;
}

const readJsonl = <T>(file: string): T[] => readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as T);

function write(variant: string, tools: unknown[], queries: LabelledQuery[]): void {
  const dir = join(values.out!, variant);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "catalog.json"), `[\n${tools.map((t) => JSON.stringify(t)).join(",\n")}\n]\n`);
  writeFileSync(join(dir, "queries.jsonl"), queries.map((q) => JSON.stringify(q)).join("\n") + "\n");
  console.log(`${variant}: ${tools.length} tools, ${queries.length} queries → ${dir}`);
}

for (const [set, every] of [["metatool", 10], ["toolalpaca", 1], ["stabletoolbench", 1]] as const) {
  const tools = JSON.parse(readFileSync(join(values.data!, set, "catalog.json"), "utf8")) as RawTool[];
  const queries = readJsonl<LabelledQuery>(join(values.data!, set, "queries.jsonl")).filter((_, i) => i % every === 0);
  write(`${set}-pairs`, tools, pairQueries(queries));
}

{
  const tools = JSON.parse(readFileSync(join(values.data!, "stabletoolbench", "catalog.json"), "utf8")) as RawTool[];
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const t of tools) {
    const [server, api] = (t.source_name ?? t.name).split("::");
    const clean = (s: string) => s.replace(/[^a-zA-Z0-9_-]+/g, "_").replace(/_+/g, "_").replace(/^_|_$/g, "");
    let name = `${clean(server)}__${clean(api ?? t.name)}`.slice(0, 64);
    for (let k = 2; taken.has(name); k++) name = `${name.slice(0, 60)}_${k}`;
    taken.add(name);
    names.set(t.name, name);
  }
  const queries = readJsonl<LabelledQuery>(join(values.data!, "stabletoolbench", "queries.jsonl"));
  write("stabletoolbench-mcp", tools.map((t) => ({ ...t, name: names.get(t.name), source_name: undefined })),
    queries.map((q) => ({ ...q, relevant: q.relevant.map((r) => names.get(r)!) })));
}
