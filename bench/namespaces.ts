/**
 * Namespaces for OpenAI Responses tool search: what the model sees up front when deferred functions go out one by one
 * (each function's name and description) against grouped into namespaces by `category` (each namespace's name and
 * description; for the smithery set a category is an MCP server). Sizes only: which tools a client-executed search
 * finds does not depend on the grouping, since our engine ranks the full tool text either way.
 *
 *   npm run bench:namespaces               # table
 *   npm run bench:namespaces -- --json     # one JSON object
 *
 * Options: --data DIR (default ../shared/data), --sets a,b,c (default toolalpaca,stabletoolbench,smithery,scale).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { readFileSync } from "node:fs";
import { groupTools, type ToolGroup } from "../src/agents/namespaces.js";
import { toolSearchOutput } from "../src/agents/openai-tool-search.js";
import { table } from "../src/cli/output.js";
import { ToolIndex } from "../src/indexes/tool-index.js";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    sets: { type: "string", default: "toolalpaca,stabletoolbench,smithery,scale" },
    json: { type: "boolean", default: false },
  },
});

/** Characters the model sees for one searchable entry: its name and its description. */
const visible = (name: string, description: string) => name.length + description.length;

const rows: Record<string, string | number>[] = [];
for (const set of values.sets.split(",")) {
  const file = join(values.data, set, "catalog.json");
  if (!existsSync(file)) continue;
  const index = await ToolIndex.fromFile(file);
  const tools = index.list();
  const { groups, loose } = groupTools(tools, { groupBy: "category" });
  const flat = tools.reduce((sum, t) => sum + visible(t.name, t.description), 0);
  const grouped = groups.reduce((sum, g) => sum + visible(g.name, g.description), 0) + loose.reduce((sum, t) => sum + visible(t.name, t.description), 0);
  const sizes = groups.map((g) => g.tools.length).sort((a, b) => a - b);
  const big = groups.filter((g) => g.tools.length >= 10);
  rows.push({
    set, tools: tools.length, namespaces: groups.length, loose: loose.length,
    "median size": sizes.length ? sizes[Math.floor(sizes.length / 2)] : 0,
    "tools in ns ≥10": `${((100 * big.reduce((s, g) => s + g.tools.length, 0)) / tools.length).toFixed(0)}%`,
    "flat ~tokens": Math.round(flat / 4), "namespaced ~tokens": Math.round(grouped / 4),
    saved: `${(100 * (1 - grouped / flat)).toFixed(1)}%`,
    "search output +": await outputGrowth(set, index, groups),
  });
}
/**
 * How much larger a client search's `tool_search_output` gets when its tools come wrapped in their namespaces: top-5
 * BM25 hits for the set's first 200 queries, JSON characters namespaced against flat.
 */
async function outputGrowth(set: string, index: ToolIndex, groups: ToolGroup[]): Promise<string> {
  const file = join(values.data, set, "queries.jsonl");
  if (!existsSync(file)) return "-";
  const queries = readFileSync(file, "utf8").split("\n").filter(Boolean).slice(0, 200).map((line) => JSON.parse(line).query as string);
  const namespaced = { tools: [], namespaceOf: new Map(groups.flatMap((g) => g.tools.map((t) => [t.name, g] as const))) };
  const flat = { tools: [], namespaceOf: new Map<string, ToolGroup>() };
  let flatChars = 0;
  let groupedChars = 0;
  for (const query of queries) {
    const found = (await index.search(query, { limit: 5 })).map((h) => index.require(h.name));
    flatChars += JSON.stringify(toolSearchOutput("c", found, flat)).length;
    groupedChars += JSON.stringify(toolSearchOutput("c", found, namespaced)).length;
  }
  return `${((100 * groupedChars) / flatChars - 100).toFixed(1)}%`;
}

if (values.json) console.log(JSON.stringify(rows));
else console.log(table(Object.keys(rows[0] ?? {}), rows.map((r) => Object.values(r).map(String))).join("\n"));
