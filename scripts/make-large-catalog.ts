/**
 * Writes a deterministic catalog of 100,000 tools (or `--tools N`) made only of real tool texts, for the scale
 * benchmark (`npm run bench:scale`). The first 12,174 tools are the scale catalog unchanged (StableToolBench plus
 * Smithery), so its labelled queries still name their tools; the rest recombine real tools of every shared set
 * (StableToolBench, Smithery, ToolAlpaca, MetaTool), each new tool taking:
 * - its name from one real tool plus the last word of another's, and a base-36 serial so names stay unique;
 * - its description from the first sentence of that tool and the first sentence of a third;
 * - its parameters from the first tool plus up to two of a fourth (a clashing key keeps the first);
 * - its category from a fifth, when that one has one.
 * Choices come from a seeded generator (mulberry32, seed 17): the same input files give the same bytes.
 *
 *   node --import tsx scripts/make-large-catalog.ts [--data ../shared/data] [--tools 100000] [--out .bench-out/catalog-100k.json]
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { random } from "../bench/random.js";

/** A catalog record as the shared files write it. */
interface RawTool {
  name: string;
  description: string;
  input_schema: { type: "object"; properties: Record<string, unknown>; required?: string[] };
  category?: string;
}

export const LARGE_CATALOG_PATH = ".bench-out/catalog-100k.json";
const SOURCES = ["stabletoolbench", "smithery", "toolalpaca", "metatool"];

function firstSentence(text: string): string {
  const cut = text.search(/[.!?](\s|$)/);
  return (cut < 0 ? text : text.slice(0, cut + 1)).trim().slice(0, 300);
}

function lastWord(name: string): string {
  const parts = name.split(/[_-]+/).filter(Boolean);
  return parts[parts.length - 1] ?? "tool";
}

/** The tools of the large catalog, in order: the scale catalog, then recombined tools up to `count`. */
export function makeLargeCatalog(dataDir: string, count: number): RawTool[] {
  const read = (set: string): RawTool[] => JSON.parse(readFileSync(join(dataDir, set, "catalog.json"), "utf8"));
  const base = read("scale");
  const pool = SOURCES.flatMap(read);
  const next = random(17);
  const pick = () => pool[Math.floor(next() * pool.length)];
  const out = base.slice(0, count);
  for (let serial = 0; out.length < count; serial++) {
    const [a, b, c, d, e] = [pick(), pick(), pick(), pick(), pick()];
    const suffix = `_${serial.toString(36)}`;
    const name = `${a.name}_${lastWord(b.name)}`.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64 - suffix.length) + suffix;
    const description = [firstSentence(a.description), firstSentence(c.description)].filter(Boolean).join(" ");
    const properties: Record<string, unknown> = { ...a.input_schema.properties };
    for (const key of Object.keys(d.input_schema.properties).slice(0, 2)) properties[key] ??= d.input_schema.properties[key];
    const tool: RawTool = { name, description, input_schema: { type: "object", properties } };
    if (a.input_schema.required?.length) tool.input_schema.required = a.input_schema.required;
    if (e.category !== undefined) tool.category = e.category;
    out.push(tool);
  }
  return out;
}

/** Writes the catalog, one tool per line like the shared files. */
export function writeLargeCatalog(dataDir: string, count: number, path: string): void {
  const tools = makeLargeCatalog(dataDir, count);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `[\n${tools.map((t) => `  ${JSON.stringify(t)}`).join(",\n")}\n]\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { data: { type: "string", default: "../shared/data" }, tools: { type: "string", default: "100000" }, out: { type: "string", default: LARGE_CATALOG_PATH } } });
  writeLargeCatalog(values.data!, Number(values.tools), values.out!);
  console.log(`wrote ${values.tools} tools to ${values.out}`);
}
