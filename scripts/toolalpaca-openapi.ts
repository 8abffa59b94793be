/**
 * The ToolAlpaca dev set (../shared/data/toolalpaca) as our own OpenAPI importer sees it: the 21 specs imported, each
 * under its own prefix (as the gateway would name them), and the labelled queries mapped onto the imported names
 * through operations.json (spec, method, path), as scripts/eval-openapi.ts does (for scripts/make-stress-sets.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { LabelledQuery } from "../src/eval/queries.js";
import { catalogFromOpenApi, type OpenApiTool } from "../src/openapi/catalog.js";
import { NameRegistry } from "../src/openapi/names.js";
import type { DescriptionRecipe } from "../src/openapi/text.js";

export const DATA = new URL("../../shared/data/toolalpaca/", import.meta.url).pathname;

export interface Operation {
  spec: string;
  method: string;
  path: string;
}

/**
 * operations.json, plus the operations the converter recovered from paths nested inside others (listed in stats.json
 * as "API::name (METHOD /path, nested under …)"), which operations.json leaves out.
 */
export function readOperations(): Record<string, Operation> {
  const operations = JSON.parse(readFileSync(join(DATA, "operations.json"), "utf8")) as Record<string, Operation>;
  const stats = JSON.parse(readFileSync(join(DATA, "stats.json"), "utf8")) as { functions_recovered_from_documentation?: string[] };
  for (const line of stats.functions_recovered_from_documentation ?? []) {
    const match = /^(.+?)::(\S+) \((\w+) ([^\s,)]+)/.exec(line);
    if (!match) continue;
    const [, api, fn, method, path] = match;
    const sibling = Object.entries(operations).find(([name]) => name.startsWith(`${api!.replace(/[^a-zA-Z0-9_-]/g, "_")}__`));
    if (sibling) operations[`${sibling[0].split("__")[0]}__${fn}`] = { spec: sibling[1].spec, method: method!, path: path! };
  }
  return operations;
}

export function readQueries(): LabelledQuery[] {
  return readFileSync(join(DATA, "queries.jsonl"), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as LabelledQuery);
}

/** Imports every spec with one recipe; returns the tools and a map from "spec METHOD path" to tool name. */
export async function importAll(recipe: DescriptionRecipe): Promise<{ tools: OpenApiTool[]; byOperation: Map<string, string>; skipped: number }> {
  const names = new NameRegistry();
  const tools: OpenApiTool[] = [];
  const byOperation = new Map<string, string>();
  let skipped = 0;
  for (const file of readdirSync(join(DATA, "specs")).sort()) {
    const prefix = basename(file, ".json").replace(/[^a-zA-Z0-9_-]/g, "_");
    const catalog = await catalogFromOpenApi(join(DATA, "specs", file), { prefix, names, recipe });
    skipped += catalog.skipped.length;
    for (const tool of catalog.tools) {
      tools.push(tool);
      byOperation.set(`specs/${file} ${tool.openapi.method} ${tool.openapi.path}`, tool.name);
    }
  }
  return { tools, byOperation, skipped };
}

/** The labels rewritten to imported names; a query with a label that has no imported operation is counted and dropped. */
export function mapQueries(queries: LabelledQuery[], operations: Record<string, Operation>, byOperation: Map<string, string>): { mapped: LabelledQuery[]; unmapped: string[] } {
  const mapped: LabelledQuery[] = [];
  const unmapped: string[] = [];
  for (const query of queries) {
    const relevant = query.relevant.map((label) => {
      const op = operations[label];
      // The importer reads a path without its leading "/" as if it had one; so does the mapping.
      return op ? byOperation.get(`${op.spec} ${op.method.toUpperCase()} ${op.path.startsWith("/") ? op.path : `/${op.path}`}`) : undefined;
    });
    if (relevant.some((r) => r === undefined)) unmapped.push(query.id);
    else mapped.push({ ...query, relevant: relevant as string[] });
  }
  return { mapped, unmapped };
}

