/**
 * The Vercel AI SDK adapter: our engines behind the AI SDK's `toolSearch()`, and a catalog as AI SDK tools registered
 * with `deferLoading`. The AI SDK keeps its own loop and discovery (found tools become callable on the next step);
 * we only rank. Importing this module imports `ai`; nothing else in toolsearch does.
 *
 * @example
 * ```ts
 * import { generateText, isStepCount } from "ai";
 * import { ToolIndex } from "toolsearch";
 * import { catalogTools, indexedToolSearch } from "toolsearch/ai-sdk";
 *
 * const catalog = await ToolIndex.fromFile("catalog.json");
 * const result = await generateText({
 *   model,
 *   tools: { search: indexedToolSearch({ index: catalog }), ...catalogTools(catalog, { handlers }) },
 *   stopWhen: isStepCount(5),
 *   prompt: "Will it rain in Lisbon tomorrow?",
 * });
 * ```
 */
import { jsonSchema, tool, toolSearch, type ToolSet } from "ai";
import { type RunToolOptions, runTool, type ToolHandlers } from "../execution/run-tool.js";
import { InputValidator } from "../execution/validate-input.js";
import { ToolIndex } from "../indexes/tool-index.js";
import { MAX_LIMIT } from "../indexes/tool-index-options.js";
import { parseSelect, resolveSelect } from "../metatools/select.js";
import type { ToolSearchEngine } from "../metatools/tool-search.js";

/** What the AI SDK passes to a `toolSearch` callback: the query, and the generation's deferred tools. */
export interface AiSdkSearchRequest {
  query: string;
  tools: { name: string; description?: string }[];
}

/** Options of the search callback. */
export interface AiSdkSearchOptions {
  /**
   * The index to rank with (e.g. the catalog the tools came from, with its schemas, categories and embeddings).
   * Default: an index built from the names and descriptions the AI SDK passes, rebuilt only when they change.
   */
  index?: ToolIndex;
  /** Default `bm25`; `regex`, `semantic` and `hybrid` work too. */
  engine?: ToolSearchEngine;
}

/**
 * A `search` callback for the AI SDK's `toolSearch()`: names ranked by our engine, restricted to the generation's
 * deferred tools (the AI SDK ignores others, then applies `maxResults`). A `select:a,b` query returns exactly the
 * named tools; an unknown name is replaced by its closest names, so the model sees what exists.
 */
export function toolSearchCallback(options: AiSdkSearchOptions = {}): (request: AiSdkSearchRequest) => Promise<string[]> {
  let built: { key: string; index: ToolIndex } | undefined;
  const indexFor = async (tools: AiSdkSearchRequest["tools"]): Promise<ToolIndex> => {
    if (options.index) return options.index;
    const key = JSON.stringify(tools);
    if (built?.key !== key) {
      built = { key, index: await ToolIndex.fromTools(tools.map((t) => ({ name: t.name, description: t.description ?? "", input_schema: { type: "object" } }))) };
    }
    return built.index;
  };
  return async ({ query, tools }) => {
    const allowed = new Set(tools.map((t) => t.name));
    const selected = parseSelect(query);
    if (selected) {
      const selection = resolveSelect(selected, allowed);
      return [...new Set([...selection.found, ...selection.unknown.flatMap((u) => u.close)])];
    }
    const index = await indexFor(tools);
    const hits = await index.search(query, { engine: options.engine ?? "bm25", limit: Math.min(MAX_LIMIT, Math.max(1, index.size)) });
    return hits.map((h) => h.name).filter((name) => allowed.has(name));
  };
}

/** Options of `indexedToolSearch`: the callback's, and the AI SDK's own `maxResults` (default 5). */
export interface IndexedToolSearchOptions extends AiSdkSearchOptions {
  maxResults?: number;
}

/** The AI SDK's `toolSearch()` with our engines behind it. Register it under any key next to deferred tools. */
export function indexedToolSearch(options: IndexedToolSearchOptions = {}): ReturnType<typeof toolSearch> {
  return toolSearch({ search: toolSearchCallback(options), maxResults: options.maxResults });
}

/** Options of `catalogTools`. */
export interface CatalogToolsOptions extends Pick<RunToolOptions, "timeoutMs"> {
  /** Handlers by tool name; a tool without one answers with an error saying it cannot run here. */
  handlers?: ToolHandlers;
  /** Tools registered without `deferLoading` (callable from the first step). */
  alwaysLoad?: string[];
}

/**
 * A catalog as AI SDK tools, each with `deferLoading: true` (except `alwaysLoad`), its JSON Schema as given, and an
 * `execute` that validates the input (coercing "5" to 5, filling defaults) and runs the handler with a timeout. A bad
 * input or a failing handler throws with the same message our other adapters send, which the AI SDK returns to the
 * model as a tool error.
 */
export function catalogTools(index: ToolIndex, options: CatalogToolsOptions = {}): ToolSet {
  const alwaysLoad = new Set(options.alwaysLoad ?? []);
  for (const name of alwaysLoad) index.require(name);
  const validator = new InputValidator();
  const tools: ToolSet = {};
  for (const entry of index.list()) {
    tools[entry.name] = tool({
      description: entry.description,
      inputSchema: jsonSchema<Record<string, unknown>>(entry.inputSchema),
      deferLoading: !alwaysLoad.has(entry.name),
      execute: async (input: Record<string, unknown>, { toolCallId }: { toolCallId: string }) => {
        const outcome = await runTool({ name: entry.name, input, id: toolCallId }, index, options.handlers ?? {}, { validator, timeoutMs: options.timeoutMs });
        const text = typeof outcome.content === "string" ? outcome.content : outcome.content.map((b) => ("text" in b ? b.text : JSON.stringify(b))).join("\n");
        if (outcome.isError) throw new Error(text);
        return text;
      },
    });
  }
  return tools;
}
