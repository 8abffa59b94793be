/**
 * The OpenAI Agents SDK adapter: a client-executed `toolSearchTool` whose executor is our index, and a catalog as
 * Agents SDK function tools with `deferLoading` (optionally grouped into namespaces). The SDK's runner keeps its own
 * loop: it sends the deferred tools, receives the model's `tool_search_call`, runs our executor and answers with a
 * `tool_search_output`. Importing this module imports `@openai/agents`; nothing else in toolsearch does.
 *
 * @example
 * ```ts
 * import { Agent, run } from "@openai/agents";
 * import { ToolIndex } from "toolsearch";
 * import { catalogAgentTools, indexedToolSearchTool } from "toolsearch/openai-agents";
 *
 * const catalog = await ToolIndex.fromFile("catalog.json");
 * const agent = new Agent({
 *   name: "Assistant", model: "gpt-5.4",
 *   tools: [indexedToolSearchTool({ index: catalog }), ...catalogAgentTools(catalog, { handlers })],
 * });
 * const result = await run(agent, "Will it rain in Lisbon tomorrow?");
 * ```
 */
import { type ClientToolSearchExecutor, type FunctionTool, type HostedTool, tool, toolNamespace, toolSearchTool } from "@openai/agents";
import type { Tool as CatalogTool } from "../catalog/tool.js";
import { type RunToolOptions, runTool, type ToolHandlers } from "../execution/run-tool.js";
import { InputValidator } from "../execution/validate-input.js";
import { ToolIndex } from "../indexes/tool-index.js";
import { parseSelect, resolveSelect } from "../metatools/select.js";
import { handleToolSearch, type ToolSearchEngine, toolSearchDefinition } from "../metatools/tool-search.js";
import { referencedTools } from "../metatools/types.js";
import { type GroupOptions, groupTools } from "./namespaces.js";

type AnyFunctionTool = FunctionTool<any, any, any>;

/** Options of the executor and of `indexedToolSearchTool`. */
export interface AgentsToolSearchOptions {
  /** The index to rank with; default: one built from the agent's deferred function tools (rebuilt when they change). */
  index?: ToolIndex;
  /** Default `bm25`; `regex` makes the model send a `pattern`. */
  engine?: ToolSearchEngine;
  /** Results when the model gives no `limit` (default 5, at most 10). */
  searchLimit?: number;
  /** What the catalog holds, for the tool's description. */
  about?: string;
}

/**
 * A `ClientToolSearchExecutor`: reads `{query, limit}` (or `{pattern, limit}`, or `select:a,b`) from the
 * `tool_search_call`, ranks with our engine among the agent's deferred function tools, and returns those tools, best
 * first. Guidance for an empty or bad search has no place in a `tool_search_output`, so such a search loads nothing;
 * an unknown name in `select:` loads the tools with close names instead.
 */
export function toolSearchExecutor<Context = unknown>(options: AgentsToolSearchOptions = {}): ClientToolSearchExecutor<Context> {
  let built: { key: string; index: ToolIndex } | undefined;
  const indexFor = async (deferred: AnyFunctionTool[]): Promise<ToolIndex> => {
    if (options.index) return options.index;
    const key = JSON.stringify(deferred.map((t) => [t.name, t.description]));
    if (built?.key !== key) {
      built = { key, index: await ToolIndex.fromTools(deferred.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }))) };
    }
    return built.index;
  };
  return async ({ availableTools, toolCall }) => {
    const deferred = availableTools.filter((t): t is AnyFunctionTool => t.type === "function" && t.deferLoading === true);
    const byName = new Map(deferred.map((t) => [t.name, t]));
    const index = await indexFor(deferred);
    const args = (typeof toolCall.arguments === "string" ? safeJson(toolCall.arguments) : toolCall.arguments) as Record<string, unknown> | undefined;
    const selected = parseSelect(String(args?.query ?? args?.pattern ?? ""));
    if (selected) {
      // Only tools can go back: an unknown name is answered with the tools whose names are close to it.
      const selection = resolveSelect(selected, byName.keys());
      return [...new Set([...selection.found, ...selection.unknown.flatMap((u) => u.close)])].map((name) => byName.get(name)!);
    }
    const exclude = index.names().filter((name) => !byName.has(name));
    const result = await handleToolSearch(index, args ?? {}, { engine: options.engine, defaultLimit: options.searchLimit, exclude });
    if (result.isError) return [];
    return referencedTools(result.content).map((name) => byName.get(name)).filter((t): t is AnyFunctionTool => t !== undefined);
  };
}

/** The Agents SDK's `toolSearchTool` run on the client by our engines, with our description and parameters. */
export function indexedToolSearchTool<Context = unknown>(options: AgentsToolSearchOptions = {}): HostedTool {
  const definition = toolSearchDefinition({ engine: options.engine, defaultLimit: options.searchLimit, about: options.about });
  return toolSearchTool<Context>({ execution: "client", description: definition.description, parameters: definition.input_schema, execute: toolSearchExecutor<Context>(options) });
}

/** Options of `catalogAgentTools`. */
export interface CatalogAgentToolsOptions extends GroupOptions, Pick<RunToolOptions, "timeoutMs"> {
  handlers?: ToolHandlers;
  /** Tools sent in full from the first turn (not deferred, not in a namespace). */
  alwaysLoad?: string[];
}

/**
 * A catalog as Agents SDK function tools: deferred (except `alwaysLoad`), non-strict JSON Schema parameters as given,
 * and an `invoke` that validates the input (coercion, defaults) and runs the handler with a timeout. A bad input or a
 * failing handler comes back to the model as the error text our other adapters send. With `groupBy`, deferred tools
 * are grouped with the SDK's `toolNamespace`.
 */
export function catalogAgentTools(index: ToolIndex, options: CatalogAgentToolsOptions = {}): AnyFunctionTool[] {
  const alwaysLoad = new Set(options.alwaysLoad ?? []);
  for (const name of alwaysLoad) index.require(name);
  const validator = new InputValidator();
  const make = (entry: CatalogTool, deferLoading: boolean): AnyFunctionTool =>
    tool({
      name: entry.name,
      description: entry.description,
      parameters: entry.inputSchema as never,
      strict: false,
      deferLoading,
      execute: async (input: unknown) => {
        const outcome = await runTool({ name: entry.name, input }, index, options.handlers ?? {}, { validator, timeoutMs: options.timeoutMs });
        const text = typeof outcome.content === "string" ? outcome.content : outcome.content.map((b) => ("text" in b ? b.text : JSON.stringify(b))).join("\n");
        return outcome.isError ? `Error: ${text}` : text;
      },
    }) as AnyFunctionTool;
  const loaded = index.list().filter((t) => alwaysLoad.has(t.name)).map((t) => make(t, false));
  const { groups, loose } = groupTools(index.list().filter((t) => !alwaysLoad.has(t.name)), options);
  const grouped = groups.flatMap((g) => toolNamespace({ name: g.name, description: g.description, tools: g.tools.map((t) => make(t, true)) }));
  return [...loaded, ...grouped, ...loose.map((t) => make(t, true))];
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
