/**
 * `tool_search`: the one meta-tool an agent needs in front of a large catalog. It searches the catalog and answers
 * with `tool_reference` blocks naming the best tools, which the API (or the loop) then makes callable.
 *
 * @example
 * ```ts
 * const search = toolSearchTool(index, { engine: "bm25" });
 * await search.handle({ query: "stock level" });
 * // { content: [{ type: "tool_reference", tool_name: "get_stock_level" }, …], isError: false }
 * ```
 */
import type { AnthropicTool } from "../catalog/tool.js";
import { ToolsearchError } from "../errors.js";
import type { ToolIndex } from "../indexes/tool-index.js";
import type { ToolCatalog } from "../indexes/tool-view.js";
import type { ToolSearchOptions } from "../indexes/tool-index-options.js";
import { emptySelectMessage, MAX_SELECT_NAMES, parseSelect, resolveSelect, unknownNamesNote } from "./select.js";
import { type MetaTool, type MetaToolResult, type ResultBlock, textBlock, toolReference } from "./types.js";

export const TOOL_SEARCH = "tool_search";
/** Results per search when the model does not ask for a number. */
export const DEFAULT_SEARCH_RESULTS = 5;
/** Most results one search may return: more would defeat the point of searching. */
export const MAX_SEARCH_RESULTS = 10;

/** The engine behind `tool_search`; `regex` changes its input from `query` to `pattern`. */
export type ToolSearchEngine = NonNullable<ToolSearchOptions["engine"]>;

/** Options of the `tool_search` meta-tool. */
export interface ToolSearchToolOptions {
  /** Default `bm25`. */
  engine?: ToolSearchEngine;
  /** Results when the model gives no `limit` (default 5, at most 10). */
  defaultLimit?: number;
  /** What the catalog holds, for the description (e.g. "the company's CRM, inventory and HR tools"). */
  about?: string;
  /** Tools never returned by a search (those already loaded, the meta-tools themselves). */
  exclude?: Iterable<string>;
}

/** The definition the model sees. */
export function toolSearchDefinition(options: ToolSearchToolOptions = {}): AnthropicTool {
  const limit = options.defaultLimit ?? DEFAULT_SEARCH_RESULTS;
  const about = options.about ?? "the tool catalog";
  const limitProperty = {
    type: "integer",
    minimum: 1,
    maximum: MAX_SEARCH_RESULTS,
    description: `How many tools to return (default ${limit}, at most ${MAX_SEARCH_RESULTS}).`,
  };
  if (options.engine === "regex") {
    return {
      name: TOOL_SEARCH,
      description: [
        `Find tools in ${about} whose name, description or parameters match a regular expression.`,
        "Call it whenever you need a capability that none of your current tools provides; the tools it finds become callable right away.",
        "Matching is case-insensitive, names rank first; use alternation for synonyms, e.g. 'stock|inventory' or 'get_.*customer'.",
        "When nothing matches, try a broader pattern before telling the user no tool exists.",
      ].join(" "),
      input_schema: {
        type: "object",
        properties: {
          pattern: { type: "string", maxLength: 200, description: "A regular expression (Python re syntax, at most 200 characters), e.g. 'weather|forecast'." },
          limit: limitProperty,
        },
        required: ["pattern"],
        additionalProperties: false,
      },
    };
  }
  return {
    name: TOOL_SEARCH,
    description: [
      `Find tools in ${about} by describing what you need to do.`,
      "Call it whenever you need a capability that none of your current tools provides; the tools it finds become callable right away, best match first.",
      "Pass a few specific keywords about the action and the object (e.g. 'check stock level', 'refund order'), not the user's whole message.",
      "When nothing fits, search again with other words or synonyms before telling the user no tool exists.",
    ].join(" "),
    input_schema: {
      type: "object",
      properties: {
        query: { type: "string", description: "What the tool should do, in a few keywords, e.g. 'current weather city'; or 'select:name1,name2' to load tools by exact name." },
        limit: limitProperty,
      },
      required: ["query"],
      additionalProperties: false,
    },
  };
}

/** Runs one search; hits become `tool_reference` blocks, no hit becomes guidance text. */
export async function handleToolSearch(index: ToolIndex, input: Record<string, unknown>, options: ToolSearchToolOptions = {}): Promise<MetaToolResult> {
  const engine = options.engine ?? "bm25";
  const field = engine === "regex" ? "pattern" : "query";
  const query = typeof input[field] === "string" ? (input[field] as string).trim() : "";
  if (!query) return { content: `${TOOL_SEARCH} needs a ${field}, e.g. {"${field}": "${engine === "regex" ? "stock|inventory" : "check stock level"}"}.`, isError: true };
  const selected = parseSelect(query);
  if (selected) return selectTools(index, selected);
  const limit = input.limit === undefined ? (options.defaultLimit ?? DEFAULT_SEARCH_RESULTS) : input.limit;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_RESULTS) {
    return { content: `limit must be a whole number from 1 to ${MAX_SEARCH_RESULTS} (got ${JSON.stringify(input.limit)}).`, isError: true };
  }
  const exclude = new Set(options.exclude ?? []);
  let names: string[];
  try {
    // Ask for extra hits so that excluded tools do not shrink the answer.
    const hits = await index.search(query, { engine, limit: Math.min(limit + exclude.size, 50) });
    names = hits.map((h) => h.name).filter((n) => !exclude.has(n)).slice(0, limit);
  } catch (error) {
    if (error instanceof ToolsearchError) return { content: `${error.message} Fix the ${field} and search again.`, isError: true };
    throw error;
  }
  if (names.length === 0) return { content: noToolGuidance(index, query, engine), isError: false };
  return { content: names.map(toolReference), isError: false };
}

/**
 * A `select:a,b` query: exactly the named tools, in order, whatever the engine; unknown names are answered in a text
 * block with their closest names.
 */
export function selectTools(index: ToolIndex, names: string[]): MetaToolResult {
  if (names.length === 0 || names.length > MAX_SELECT_NAMES) return { content: emptySelectMessage(), isError: true };
  const selection = resolveSelect(names, index.names());
  const note = unknownNamesNote(selection);
  if (selection.found.length === 0) return { content: `${note} Search by keywords if none of these is what you need.`, isError: false };
  const blocks: ResultBlock[] = selection.found.map(toolReference);
  if (note) blocks.push(textBlock(note));
  return { content: blocks, isError: false };
}

/** What to do when nothing matched: close names or words when there are some, and other ways to ask. */
export function noToolGuidance(index: ToolCatalog, query: string, engine: ToolSearchEngine): string {
  const near = engine === "regex" ? index.closestNames(query.replace(/[^\w-]+/g, "_")) : index.suggest(query);
  const hint = near.length ? ` Close names or words in the catalog: ${near.join(", ")}.` : "";
  const retry = engine === "regex" ? "Try a broader pattern, alternation of synonyms (a|b), or part of a tool name." : "Try other or fewer keywords, or a synonym.";
  return `No tools match ${JSON.stringify(query)}.${hint} ${retry} If nothing fits after that, tell the user which capability is missing instead of guessing.`;
}

/** `tool_search` as a meta-tool over an index. */
export function toolSearchTool(index: ToolIndex, options: ToolSearchToolOptions = {}): MetaTool {
  const definition = toolSearchDefinition(options);
  return { kind: "tool_search", definition, handle: (input) => handleToolSearch(index, input, options) };
}
