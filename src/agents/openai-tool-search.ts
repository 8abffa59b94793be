/**
 * OpenAI Responses' native tool search: catalog functions sent with `defer_loading: true` (alone or grouped into
 * namespaces) next to a `tool_search` tool. With `execution: "client"` the model emits a `tool_search_call` and we
 * answer with a `tool_search_output` carrying the definitions our engines found; with `execution: "server"` OpenAI
 * searches the deferred tools itself. `tools` never changes during a run, so the cached prefix holds: found tools are
 * appended to the conversation, not to `tools`.
 *
 * @example
 * ```ts
 * const layout = responsesToolLayout(toolbox, { toolSearch: "client", groupBy: "category" });
 * checkResponsesRequest({ tools: layout.tools, input });
 * ```
 */
import type OpenAI from "openai";
import type { AnthropicTool, Tool } from "../catalog/tool.js";
import { TOOL_NAME_PATTERN } from "../catalog/validate.js";
import { TOOL_SEARCH } from "../metatools/tool-search.js";
import { type GroupOptions, groupTools, type ToolGroup } from "./namespaces.js";
import { throwIfProblems } from "./request-problems.js";
import type { Toolbox } from "./toolbox.js";

type ResponsesTool = OpenAI.Responses.Tool;
type FunctionTool = OpenAI.Responses.FunctionTool;
type NamespaceTool = OpenAI.Responses.NamespaceTool;
type InputItem = OpenAI.Responses.ResponseInputItem;
type SearchOutput = OpenAI.Responses.ResponseToolSearchOutputItemParam;

/**
 * How the model finds tools on Responses:
 * - `client`: OpenAI's `tool_search` tool, executed by us (our engines, `select:` queries) — the native form;
 * - `server`: OpenAI's hosted `tool_search` over the deferred functions;
 * - `emulated`: our `tool_search` as a plain function, found tools added to `tools` next turn (Chat Completions,
 *   models before tool_search).
 */
export type OpenAiToolSearch = "client" | "server" | "emulated";

/** Options of the native layout. */
export interface ResponsesLayoutOptions extends GroupOptions {
  toolSearch: "client" | "server";
}

/** The fixed `tools` of a native run, and where each deferred tool lives (its namespace, if any). */
export interface ResponsesLayout {
  tools: ResponsesTool[];
  namespaceOf: Map<string, ToolGroup>;
}

/**
 * `tools` for native tool search: the `tool_search` tool, other meta-tools and always-loaded tools in full, then every
 * other catalog tool deferred, in namespaces when `groupBy` says so.
 */
export function responsesToolLayout(toolbox: Toolbox, options: ResponsesLayoutOptions): ResponsesLayout {
  const tools: ResponsesTool[] = [];
  const metaTools = toolbox.metaToolDefinitions();
  const search = metaTools.find((d) => d.name === TOOL_SEARCH);
  if (options.toolSearch === "client" && search) {
    tools.push({ type: "tool_search", execution: "client", description: search.description ?? null, parameters: search.input_schema });
  } else {
    tools.push({ type: "tool_search", execution: "server" });
  }
  for (const definition of metaTools) if (definition.name !== TOOL_SEARCH) tools.push(functionTool(definition));
  for (const tool of toolbox.alwaysLoaded()) tools.push(functionTool(tool.definition));
  const { groups, loose } = groupTools(toolbox.deferred(), options);
  const namespaceOf = new Map<string, ToolGroup>();
  for (const group of groups) {
    for (const tool of group.tools) namespaceOf.set(tool.name, group);
    tools.push(namespaceTool(group, group.tools));
  }
  for (const tool of loose) tools.push(functionTool(tool.definition, true));
  return { tools, namespaceOf };
}

/** A `tool_search_output` answering a client `tool_search_call` with the full definitions of the tools found. */
export function toolSearchOutput(callId: string | null, found: Tool[], layout: ResponsesLayout): SearchOutput {
  const tools: ResponsesTool[] = [];
  const namespaces = new Map<string, NamespaceTool>();
  for (const tool of found) {
    const group = layout.namespaceOf.get(tool.name);
    if (!group) {
      tools.push(functionTool(tool.definition, true));
      continue;
    }
    const existing = namespaces.get(group.name);
    if (existing) existing.tools.push(namespaceMember(tool.definition));
    else {
      const namespace = namespaceTool(group, [tool]);
      namespaces.set(group.name, namespace);
      tools.push(namespace);
    }
  }
  return { type: "tool_search_output", call_id: callId, execution: "client", status: "completed", tools };
}

// strict false: catalog schemas are not written for OpenAI's strict mode (every property required …).
function functionTool(definition: AnthropicTool, deferred = false): FunctionTool {
  const tool: FunctionTool = { type: "function", name: definition.name, description: definition.description ?? null, parameters: definition.input_schema, strict: false };
  if (deferred) tool.defer_loading = true;
  return tool;
}

function namespaceMember(definition: AnthropicTool): OpenAI.Responses.NamespaceTool.Function {
  return { type: "function", name: definition.name, description: definition.description ?? null, parameters: definition.input_schema, strict: false, defer_loading: true };
}

function namespaceTool(group: ToolGroup, members: Tool[]): NamespaceTool {
  return { type: "namespace", name: group.name, description: group.description, tools: members.map((t) => namespaceMember(t.definition)) };
}

type LooseTool = { type?: string; name?: string; description?: unknown; defer_loading?: boolean; execution?: string; parameters?: unknown; tools?: LooseTool[] };

/**
 * Checks the rules of deferred loading on Responses before a request is sent, so a mistake is reported in words
 * rather than as a 400: function and namespace names are valid and unique; a namespace has a description and at least
 * one function, and `defer_loading` goes on its functions, not on it; deferred functions come with exactly one
 * `tool_search` tool; a client `tool_search` has a description and parameters; every `tool_search_output` and
 * `function_call_output` answers a call made earlier in `input`. Throws `request_invalid` listing every problem.
 */
export function checkResponsesRequest(request: { tools?: unknown[]; input?: unknown }): void {
  throwIfProblems([...responsesToolProblems((request.tools ?? []) as LooseTool[]), ...responsesInputProblems(request.input)]);
}

/** The rules about `tools` alone (checked once per run: `tools` does not change while the loop runs). */
export function responsesToolProblems(tools: LooseTool[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  const checkName = (where: string, name: unknown) => {
    if (typeof name !== "string" || !TOOL_NAME_PATTERN.test(name)) problems.push(`${where}: name ${JSON.stringify(name)} must match ^[a-zA-Z0-9_-]{1,64}$`);
    else if (names.has(name)) problems.push(`${where}: name ${JSON.stringify(name)} is used twice`);
    names.add(String(name));
  };
  let deferred = 0;
  const searches = tools.filter((t) => t.type === "tool_search");
  for (const [i, tool] of tools.entries()) {
    if (tool.type === "function") {
      checkName(`tools[${i}]`, tool.name);
      if (tool.defer_loading) deferred++;
    } else if (tool.type === "namespace") {
      checkName(`tools[${i}] (namespace)`, tool.name);
      if (typeof tool.description !== "string" || !tool.description.trim()) problems.push(`tools[${i}] (namespace ${tool.name}): a namespace needs a description`);
      if (tool.defer_loading !== undefined) problems.push(`tools[${i}] (namespace ${tool.name}): defer_loading goes on the namespace's functions, not on the namespace`);
      if (!Array.isArray(tool.tools) || tool.tools.length === 0) problems.push(`tools[${i}] (namespace ${tool.name}): a namespace needs at least one function`);
      for (const [j, member] of (tool.tools ?? []).entries()) {
        checkName(`tools[${i}].tools[${j}]`, member.name);
        if (member.defer_loading) deferred++;
      }
    } else if (tool.type === "tool_search" && tool.execution === "client") {
      if (typeof tool.description !== "string" || !tool.description) problems.push(`tools[${i}] (tool_search): client execution needs a description for the model`);
      if (!tool.parameters || typeof tool.parameters !== "object") problems.push(`tools[${i}] (tool_search): client execution needs a parameters schema`);
    }
  }
  if (searches.length > 1) problems.push(`tools has ${searches.length} tool_search tools: send one`);
  if (deferred > 0 && searches.length === 0) problems.push(`${deferred} function${deferred === 1 ? " is" : "s are"} deferred (defer_loading) but tools has no tool_search tool to load them`);
  if (tools.length > 0 && tools.every((t) => t.type === "function" && t.defer_loading)) problems.push("every tool is deferred: send tool_search or another tool with defer_loading false");
  return problems;
}

/** Every output item in `input` answers a call made before it. */
export function responsesInputProblems(input: unknown): string[] {
  if (!Array.isArray(input)) return [];
  const problems: string[] = [];
  const searchCalls = new Set<string>();
  const functionCalls = new Set<string>();
  for (const [i, item] of (input as Record<string, unknown>[]).entries()) {
    if (item.type === "tool_search_call" && typeof item.call_id === "string") searchCalls.add(item.call_id);
    if (item.type === "function_call") functionCalls.add(String(item.call_id));
    // A null call_id is allowed by the API's types; only an id that answers nothing is a mistake.
    if (item.type === "tool_search_output" && item.execution === "client" && typeof item.call_id === "string" && !searchCalls.has(item.call_id)) {
      problems.push(`input[${i}]: tool_search_output answers call_id ${JSON.stringify(item.call_id)}, but no tool_search_call before it has that call_id`);
    }
    if (item.type === "function_call_output" && !functionCalls.has(String(item.call_id))) {
      problems.push(`input[${i}]: function_call_output answers call_id ${JSON.stringify(item.call_id)}, but no function_call before it has that call_id`);
    }
  }
  return problems;
}

/** Names of the functions a server-side `tool_search_output` loaded (in namespaces or alone). */
export function loadedByServerSearch(item: { tools?: unknown[] }): string[] {
  const names: string[] = [];
  const visit = (tool: LooseTool) => {
    if (tool.type === "function" && typeof tool.name === "string") names.push(tool.name);
    if (tool.type === "namespace") for (const member of tool.tools ?? []) visit(member);
  };
  for (const tool of (item.tools ?? []) as LooseTool[]) visit(tool);
  return names;
}

export type { InputItem };
