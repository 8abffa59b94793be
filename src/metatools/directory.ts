/**
 * The tool directory: a system-prompt block listing every tool name with a one-line description, grouped by
 * category. It is built only from the catalog and sorted, so an unchanged catalog gives byte-identical text and the
 * cached prompt prefix holds.
 *
 * @example
 * ```text
 * TOOL DIRECTORY (8 tools). Call describe_tool with a name to get its full definition; it then becomes callable.
 *
 * [CRM]
 * - get_customer_profile: Customer details: contact, purchase history, support tickets and segment.
 * ```
 */
import type { Tool } from "../catalog/tool.js";
import { truncateAtWord } from "../text/truncate.js";
import { DESCRIBE_TOOL } from "./describe-tool.js";

/** Options of the directory block. */
export interface ToolDirectoryOptions {
  /** Longest one-line description, in characters (default 100). */
  descriptionChars?: number;
  /** Heading for tools without a category (default "Other"). */
  uncategorized?: string;
}

const DEFAULTS = { descriptionChars: 100, uncategorized: "Other" };

/** Builds the directory text. Categories and names are sorted by code point, so catalog order does not matter. */
export function buildToolDirectory(tools: Iterable<Tool>, options: ToolDirectoryOptions = {}): string {
  const { descriptionChars, uncategorized } = { ...DEFAULTS, ...options };
  const groups = new Map<string, Tool[]>();
  let count = 0;
  for (const tool of tools) {
    const category = tool.category?.trim() || uncategorized;
    groups.set(category, [...(groups.get(category) ?? []), tool]);
    count++;
  }
  const categories = [...groups.keys()].sort(byCodePoint);
  // The catch-all group goes last so real categories lead.
  if (groups.has(uncategorized) && categories.length > 1) categories.push(...categories.splice(categories.indexOf(uncategorized), 1));
  const lines = [`TOOL DIRECTORY (${count} tools). Call ${DESCRIBE_TOOL} with a name to get its full definition; it then becomes callable.`];
  for (const category of categories) {
    lines.push("", `[${category}]`);
    const members = groups.get(category)!.sort((a, b) => byCodePoint(a.name, b.name));
    for (const tool of members) lines.push(`- ${tool.name}: ${firstLine(tool.description, descriptionChars)}`);
  }
  return lines.join("\n");
}

/** The first sentence of a description, cut at a word boundary. */
function firstLine(description: string, max: number): string {
  const clean = description.replace(/\s+/g, " ").trim();
  if (!clean) return "(no description)";
  const sentence = /^(.+?[.!?])(\s|$)/.exec(clean)?.[1] ?? clean;
  return truncateAtWord(sentence, max);
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
