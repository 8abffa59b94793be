/**
 * Stress variants of the labelled sets in ../shared/data: real tools and real queries, rewritten so that they take the
 * shapes on which defaults tuned on the originals are known to fail elsewhere (issue 17, part 5):
 *  (a) intent-style queries over tools with SHORT API descriptions whose CATEGORY carries the domain;
 *  (b) REST API operations as our own OpenAPI importer makes them.
 * They are stress tests of the defaults, not tuning targets. Every variant is deterministic (no randomness: ids are
 * hashes of the original names), and is written as `OUT/<variant>/catalog.json` + `queries.jsonl` for
 * `toolsearch eval`.
 *
 *   node --import tsx scripts/make-stress-sets.ts [--data ../shared/data] [--out .bench-out/stress]
 *
 * Variants (docs/benchmarks.md, "Stress variants"):
 * - `<set>-short`: each description cut to its first sentence, then to at most 8 words; name, parameters and
 *   category kept (stabletoolbench, toolalpaca, metatool, scale).
 * - `<set>-short-opaque`: as `-short`, and each name replaced by an opaque id (`t_` + 8 hex of its SHA-1), so the
 *   words must come from the short description, the parameters and the category (stabletoolbench, toolalpaca).
 * - `metatool-short-category`: MetaTool's intent-style queries; each tool's name words become its category, its name
 *   an opaque id, its description cut as in `-short` (MetaTool has no categories: the plugin name is its domain).
 * - `toolalpaca-openapi`: ToolAlpaca's 21 specs through `catalogFromOpenApi` (as `toolsearch import openapi`), the
 *   queries mapped onto the imported names through operations.json; and `toolalpaca-openapi-short`, the same with the
 *   descriptions cut as in `-short`.
 * MetaTool queries are every 10th line (2,062 of 20,614), as in the per-set table.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { LabelledQuery } from "../src/eval/queries.js";
import { nameToWords } from "../src/embeddings/texts.js";
import { importAll, mapQueries, readOperations, readQueries } from "./toolalpaca-openapi.js";

const { values } = parseArgs({ options: { data: { type: "string", default: "../shared/data" }, out: { type: "string", default: ".bench-out/stress" } } });

/** A tool as the data files hold it (extra keys such as source_name pass through). */
interface RawTool {
  name: string;
  description: string;
  category?: string;
  [key: string]: unknown;
}

/** Words a short API description keeps. */
const SHORT_WORDS = 8;

/** The first sentence, then at most `SHORT_WORDS` words: a terse API summary of the kind many real catalogs have. */
function shorten(description: string): string {
  const text = description.replace(/\s+/g, " ").trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(text)?.[1] ?? text;
  const words = sentence.split(" ");
  return words.length <= SHORT_WORDS ? sentence : words.slice(0, SHORT_WORDS).join(" ");
}

/** An id that says nothing: `t_` and 8 hex digits of the name's SHA-1 (unique on every set here; checked). */
function opaque(name: string): string {
  return `t_${createHash("sha1").update(name).digest("hex").slice(0, 8)}`;
}

function readJsonl<T>(file: string): T[] {
  return readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as T);
}

function readSet(name: string, every = 1): { tools: RawTool[]; queries: LabelledQuery[] } {
  const tools = JSON.parse(readFileSync(join(values.data!, name, "catalog.json"), "utf8")) as RawTool[];
  const queries = readJsonl<LabelledQuery>(join(values.data!, name, "queries.jsonl")).filter((_, i) => i % every === 0);
  return { tools, queries };
}

/** Renames tools (and their labels) with `rename`; refuses a collision rather than merging two tools. */
function renamed(set: { tools: RawTool[]; queries: LabelledQuery[] }, rename: (t: RawTool) => string) {
  const names = new Map(set.tools.map((t) => [t.name, rename(t)]));
  if (new Set(names.values()).size !== names.size) throw new Error("opaque ids collide; lengthen them");
  return {
    tools: set.tools.map((t) => ({ ...t, name: names.get(t.name)!, source_name: undefined })),
    queries: set.queries.map((q) => ({ ...q, relevant: q.relevant.map((r) => names.get(r) ?? r) })),
  };
}

const short = (tools: RawTool[]) => tools.map((t) => ({ ...t, description: shorten(t.description) }));

function write(variant: string, tools: unknown[], queries: LabelledQuery[]): void {
  const dir = join(values.out!, variant);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "catalog.json"), `[\n${tools.map((t) => JSON.stringify(t)).join(",\n")}\n]\n`);
  writeFileSync(join(dir, "queries.jsonl"), queries.map((q) => JSON.stringify(q)).join("\n") + "\n");
  process.stdout.write(`${variant}: ${tools.length} tools, ${queries.length} queries → ${dir}\n`);
}

async function main(): Promise<void> {
  for (const name of ["stabletoolbench", "toolalpaca"]) {
    const set = readSet(name);
    write(`${name}-short`, short(set.tools), set.queries);
    const hidden = renamed(set, (t) => opaque(t.name));
    write(`${name}-short-opaque`, short(hidden.tools), hidden.queries);
  }
  const scale = readSet("scale");
  write("scale-short", short(scale.tools), scale.queries);
  const metatool = readSet("metatool", 10);
  write("metatool-short", short(metatool.tools), metatool.queries);
  const categorized = renamed(metatool, (t) => opaque(t.name));
  const domains = new Map(metatool.tools.map((t) => [opaque(t.name), nameToWords(t.name)]));
  write("metatool-short-category", short(categorized.tools).map((t) => ({ ...t, category: domains.get(t.name) })), categorized.queries);

  const { tools, byOperation } = await importAll({});
  const { mapped, unmapped } = mapQueries(readQueries(), readOperations(), byOperation);
  if (unmapped.length) process.stdout.write(`toolalpaca-openapi: ${unmapped.length} queries without an imported operation dropped\n`);
  write("toolalpaca-openapi", tools, mapped);
  write("toolalpaca-openapi-short", tools.map((t) => ({ ...t, description: shorten(t.description ?? "") })), mapped);
}

await main();
