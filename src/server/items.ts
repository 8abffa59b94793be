/**
 * What a collection's items are and how they are checked before anything is written: tools (keyed by name, any
 * shape of SPEC §3) and documents (keyed by id). A set with any bad item is refused whole, naming every problem.
 */
import { checkDocument, checkDocuments } from "../catalog/documents.js";
import type { AnthropicTool } from "../catalog/tool.js";
import { normalizeTools } from "../catalog/load.js";
import { checkItem } from "../catalog/validate.js";
import { ToolsearchError } from "../errors.js";
import type { CollectionKind, ItemInput } from "../store/types.js";

/** The REST path segment and body field of each kind's items. */
export const ITEM_KINDS = {
  tools: { segment: "tools", field: "tools", noun: "tool", notFound: "unknown_tool" },
  docs: { segment: "documents", field: "documents", noun: "document", notFound: "unknown_document" },
} as const;

export type ItemKind = keyof typeof ITEM_KINDS;

/** Checks a whole set of items; returns them keyed, in order, or throws listing every problem. */
export function checkItems(kind: ItemKind, bodies: unknown[], source: string): ItemInput[] {
  if (kind === "tools") return normalizeTools(bodies, source).map((tool, i) => ({ key: tool.name, body: bodies[i] }));
  return checkDocuments(bodies, source).map((doc, i) => ({ key: doc.id, body: bodies[i] }));
}

/** Checks one item sent to `…/{segment}/{key}`: valid, and its name or id equal to the key in the path. */
export function checkOneItem(kind: ItemKind, body: unknown, key: string, source: string): ItemInput {
  let found: string;
  if (kind === "tools") {
    const checked = checkItem(body, 0, source);
    if (!checked.tool) {
      throw new ToolsearchError("tool_invalid", `${source}: ${checked.problems.map((p) => p.message).join("; ")}`, { problems: checked.problems });
    }
    found = checked.tool.name;
  } else {
    const checked = checkDocument(body, 0, source);
    if ("problem" in checked) throw new ToolsearchError("documents_invalid", `${source}: ${checked.problem.message}`, { problems: [checked.problem] });
    found = checked.id;
  }
  if (found !== key) {
    const what = kind === "tools" ? "name" : "id";
    throw new ToolsearchError("request_invalid", `${source}: the ${ITEM_KINDS[kind].noun}'s ${what} ${JSON.stringify(found)} differs from ${JSON.stringify(key)} in the path`);
  }
  return { key, body };
}

/** A stored tool in Anthropic shape (what `GET …/tools/{name}` answers). */
export function toolDefinition(body: unknown): AnthropicTool {
  const checked = checkItem(body, 0);
  if (!checked.tool) throw new ToolsearchError("internal_error", "a stored tool no longer passes the catalog rules");
  return checked.tool.definition;
}

/** Whether a collection of `kind` holds items of `itemKind` (an `mcp` collection holds none over REST). */
export function holds(kind: CollectionKind, itemKind: ItemKind): boolean {
  return kind === itemKind;
}
