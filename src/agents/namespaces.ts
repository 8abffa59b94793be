/**
 * Grouping deferred tools into namespaces (OpenAI Responses `namespace` tools). With namespaces the model sees one
 * name and description per group up front instead of one per tool; OpenAI recommends them for tool search and
 * fewer than 10 functions a group. Grouping is by the catalog's `category` (for catalogs built from MCP servers,
 * the server), or by a function of yours.
 *
 * @example
 * ```ts
 * groupTools(index.list(), { groupBy: "category" });
 * // [{ name: "crm", description: "CRM tools: get_customer_profile, update_customer_segment.", tools: [...] }, …]
 * ```
 */
import type { Tool } from "../catalog/tool.js";
import { truncateAtWord } from "../text/truncate.js";

/** How to group deferred tools: not at all, by `category`, or by a function returning a group name (or nothing). */
export type GroupBy = "none" | "category" | ((tool: Tool) => string | undefined);

/** Options of `groupTools`. */
export interface GroupOptions {
  /** Default `none`. */
  groupBy?: GroupBy;
  /** Descriptions by group (the original group name, e.g. the category); others are generated from the tool names. */
  descriptions?: Record<string, string>;
}

/** One namespace: a valid name, a description, and its tools in catalog order. */
export interface ToolGroup {
  name: string;
  /** The group as the catalog names it (category or your function's answer). */
  label: string;
  description: string;
  tools: Tool[];
}

/** Longest generated namespace description. */
const DESCRIPTION_CHARS = 200;

/**
 * Splits tools into namespaces and loose tools (those the grouping leaves out), both in catalog order. Namespace
 * names are made valid (`^[a-zA-Z0-9_-]{1,64}$`, lower case) and unique; a name that collides with a tool name gets
 * a `_tools` suffix, since OpenAI reserves same-name namespaces.
 */
export function groupTools(tools: Tool[], options: GroupOptions = {}): { groups: ToolGroup[]; loose: Tool[] } {
  const groupBy = options.groupBy ?? "none";
  if (groupBy === "none") return { groups: [], loose: [...tools] };
  const labelOf = groupBy === "category" ? (t: Tool) => t.category : groupBy;
  const byLabel = new Map<string, Tool[]>();
  const loose: Tool[] = [];
  for (const tool of tools) {
    const label = labelOf(tool)?.trim();
    if (!label) loose.push(tool);
    else byLabel.set(label, [...(byLabel.get(label) ?? []), tool]);
  }
  const toolNames = new Set(tools.map((t) => t.name));
  const used = new Set<string>();
  const groups = [...byLabel].map(([label, members]) => {
    const name = uniqueName(namespaceName(label), used, toolNames);
    const description = options.descriptions?.[label] ?? truncateAtWord(`${label} tools: ${members.map((t) => t.name).join(", ")}.`, DESCRIPTION_CHARS);
    return { name, label, description, tools: members };
  });
  return { groups, loose };
}

/** A label as a namespace name: lower case, runs of other characters as `_`, at most 64 characters. */
export function namespaceName(label: string): string {
  const name = label.toLowerCase().replace(/[^a-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 64);
  return name || "tools";
}

function uniqueName(base: string, used: Set<string>, toolNames: Set<string>): string {
  let name = toolNames.has(base) ? `${base.slice(0, 58)}_tools` : base;
  for (let i = 2; used.has(name); i++) name = `${base.slice(0, 60)}_${i}`;
  used.add(name);
  return name;
}
