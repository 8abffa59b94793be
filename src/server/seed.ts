/**
 * `serve --catalog/--docs/--mcp-config`: each file becomes a collection named after its base name, unless the store
 * already holds one of that name (the store wins: it may have been edited since). Every file is read and checked
 * before anything is written, so a bad file starts nothing.
 */
import { basename, extname } from "node:path";
import { readRecords } from "../catalog/read-records.js";
import { loadDocuments } from "../catalog/documents.js";
import { ToolsearchError } from "../errors.js";
import { loadGatewayConfig } from "../mcp/config.js";
import type { CollectionKind, ItemInput, Store } from "../store/types.js";
import { checkItems } from "./items.js";

/** Files to serve, by kind. */
export interface SeedFiles {
  catalogs?: string[];
  docs?: string[];
  mcpConfigs?: string[];
}

interface Seed {
  name: string;
  kind: CollectionKind;
  config: Record<string, unknown>;
  items: ItemInput[];
  file: string;
}

/** The collection name a file gives: its base name without extension, e.g. `tools/crm.json` → `crm`. */
export function collectionNameOf(path: string): string {
  const base = basename(path.replace(/[/\\]+$/, ""));
  const name = base.slice(0, base.length - extname(base).length) || base;
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
    throw new ToolsearchError("invalid_option", `${path}: the collection name ${JSON.stringify(name)} (the file's base name) must be 1–64 letters, digits, "_" or "-"; rename the file`);
  }
  return name;
}

/**
 * Adds a collection for every file whose name the store does not hold yet. Returns what was added and skipped.
 *
 * @example
 * await seedCollections(store, { catalogs: ["crm.json"], docs: ["kb/"] }); // collections "crm" and "kb"
 */
export async function seedCollections(store: Store, files: SeedFiles): Promise<{ added: string[]; kept: string[] }> {
  const seeds = readSeeds(files);
  const added: string[] = [];
  const kept: string[] = [];
  for (const seed of seeds) {
    if (await store.getCollection(seed.name)) {
      kept.push(seed.name);
      continue;
    }
    await store.putCollection(seed.name, seed.kind, seed.config, seed.items);
    added.push(seed.name);
  }
  return { added, kept };
}

function readSeeds(files: SeedFiles): Seed[] {
  const seeds: Seed[] = [
    ...(files.catalogs ?? []).map((file): Seed => ({ file, name: collectionNameOf(file), kind: "tools", config: {}, items: checkItems("tools", readRecords(file, ["tools"]), file) })),
    ...(files.docs ?? []).map((file): Seed => ({ file, name: collectionNameOf(file), kind: "docs", config: {}, items: loadDocuments(file).map((doc) => ({ key: doc.id, body: doc })) })),
    ...(files.mcpConfigs ?? []).map((file): Seed => ({ file, name: collectionNameOf(file), kind: "mcp", config: { ...loadGatewayConfig(file) }, items: [] })),
  ];
  const byName = new Map<string, string>();
  for (const seed of seeds) {
    const other = byName.get(seed.name);
    if (other) throw new ToolsearchError("invalid_option", `${other} and ${seed.file} would both become collection ${JSON.stringify(seed.name)}; rename one`);
    byName.set(seed.name, seed.file);
  }
  return seeds;
}
