/**
 * Per-caller tool visibility on the service (SPEC §16): a key's `toolsAllow`/`toolsDeny` globs decide which tools of a
 * tool (or MCP) collection it sees, and a hidden tool must not exist for it anywhere. Reads go through a `ToolView`;
 * writes naming a hidden tool are refused whether or not it exists (so the refusal says nothing); sizes, times and
 * ETags are those of the visible tools alone. Documents are not tools: globs do not apply to knowledge bases.
 */
import { createHash } from "node:crypto";
import { ToolsearchError } from "../errors.js";
import type { ToolVisibility } from "../indexes/tool-index-options.js";
import { type ToolCatalog, ToolView } from "../indexes/tool-view.js";
import { type RequestKey, toolVisibility } from "./auth.js";
import type { Collections, LoadedCollection } from "./collections.js";

/** Visibility objects by rule, so that each keeps the statistics an index caches on it (bounded: rules are few). */
const visibilities = new Map<string, ToolVisibility>();
const MAX_RULES = 1000;

/** The visibility of a key's tools, or undefined when it sees every tool. */
export function visibilityOf(key: RequestKey | undefined): ToolVisibility | undefined {
  const accept = toolVisibility(key);
  if (!accept) return undefined;
  const rule = JSON.stringify([key!.toolsAllow ?? null, key!.toolsDeny ?? null]);
  let visibility = visibilities.get(rule);
  if (!visibility) {
    if (visibilities.size >= MAX_RULES) visibilities.delete(visibilities.keys().next().value!);
    visibilities.set(rule, (visibility = { accept }));
  }
  return visibility;
}

/** The tools of a tool or MCP collection as this key sees them. */
export function toolsFor(collection: LoadedCollection, key: RequestKey | undefined): ToolCatalog {
  const visible = visibilityOf(key);
  return visible ? new ToolView(collection.tools!, visible) : collection.tools!;
}

/** Whether the key sees every tool (no visibility rule). */
export function seesAllTools(key: RequestKey | undefined): boolean {
  return visibilityOf(key) === undefined;
}

/**
 * Refuses (`forbidden`) a write by a key with a visibility rule when it names a tool the key may not see, or replaces
 * or deletes a whole collection (which would touch tools it cannot see). The answer does not depend on whether such
 * a tool exists.
 */
export function requireWritable(key: RequestKey | undefined, kind: string, names: string[] | "collection"): void {
  const visible = visibilityOf(key);
  if (!visible || kind === "docs") return;
  if (names === "collection") {
    throw new ToolsearchError("forbidden", `Key ${key!.id} sees only some tools (--tools-allow/--tools-deny): it cannot replace or delete a whole collection.`);
  }
  const hidden = names.find((name) => !visible.accept(name));
  if (hidden !== undefined) {
    throw new ToolsearchError("forbidden", `Key ${key!.id} may not write tool ${JSON.stringify(hidden)}: its name is outside the key's tool globs.`, { details: { tool: hidden } });
  }
}

/**
 * The ETag a key is shown. Stored ETags carry the store's change number, which would tell a key with a visibility
 * rule that other (hidden) tools were written in between; such a key gets a digest of it instead.
 */
export function etagFor(key: RequestKey | undefined, kind: string, etag: string): string {
  if (kind === "docs" || seesAllTools(key)) return etag;
  return `v${createHash("sha256").update(etag).digest("hex").slice(0, 20)}`;
}

/** A collection's summary as this key sees it: the size and last change of its visible tools only. */
export async function visibleSummary(collections: Collections, c: LoadedCollection, key: RequestKey | undefined) {
  const full = { name: c.name, kind: c.kind, size: collections.sizeOf(c), updated_at: c.updatedAt, loaded: c.loaded };
  const visible = visibilityOf(key);
  if (!visible || c.kind === "docs") return full;
  if (c.kind === "tools") {
    // The stored items are the tools: count and date the visible ones, without loading an idle collection.
    const items = (await collections.store.listItems(c.name)).filter((item) => visible.accept(item.key));
    const latest = items.reduce((max, item) => (item.updatedAt > max ? item.updatedAt : max), "");
    return { ...full, size: items.length, updated_at: latest || new Date(0).toISOString() };
  }
  // An mcp collection's tools come from its upstreams: its index counts them (an idle one is loaded first).
  const tools = c.tools ?? (await collections.resolve(c.name)).tools;
  return tools ? { ...full, size: tools.visibleCount(visible) } : full;
}
