/**
 * The OpenAI adapter, for Chat Completions and Responses on the official `openai` SDK. On Responses with
 * `toolSearch: "client"` (or `"server"`) it speaks OpenAI's native tool search: catalog functions are deferred, the
 * model's `tool_search_call` is answered with a `tool_search_output` from our engines, and `tools` never changes.
 * Otherwise (`"emulated"`, the default, and always on Chat Completions) a search answers with compact definitions of
 * its hits and the loop adds those tools, in full, to `tools` for the next turn. Validation, execution and stats are
 * the Toolbox's, the same as with Anthropic.
 *
 * @example
 * ```ts
 * import OpenAI from "openai";
 * import { runOpenAiAgent } from "toolsearch/openai";
 * const run = await runOpenAiAgent({ client: new OpenAI(), api: "responses", toolSearch: "client", model: "gpt-5.4", catalog, handlers, prompt: "…" });
 * ```
 */
import type OpenAI from "openai";
import { apiSchema } from "../catalog/api-schema.js";
import type { AnthropicTool, JsonSchema } from "../catalog/tool.js";
import { ToolsearchError } from "../errors.js";
import type { ToolIndex } from "../indexes/tool-index.js";
import type { ResultBlock } from "../metatools/types.js";
import { TOOL_SEARCH } from "../metatools/tool-search.js";
import { truncateAtWord } from "../text/truncate.js";
import type { GroupBy } from "./namespaces.js";
import {
  loadedByServerSearch, type OpenAiToolSearch, type ResponsesLayout, responsesInputProblems, responsesToolLayout, responsesToolProblems, toolSearchOutput,
} from "./openai-tool-search.js";
import { throwIfProblems } from "./request-problems.js";
import { type AgentStats, type CallResult, Toolbox, type ToolboxOptions } from "./toolbox.js";

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ChatTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;
type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type InputItem = OpenAI.Responses.ResponseInputItem;
type ResponsesParams = OpenAI.Responses.ResponseCreateParamsNonStreaming;
type FunctionTool = OpenAI.Responses.FunctionTool;

/** Longest description in a search answer; the full definition arrives in `tools` on the next turn. */
const COMPACT_DESCRIPTION_CHARS = 200;

/** A function definition, the common part of both OpenAI APIs. */
export interface FunctionDefinition {
  name: string;
  description?: string;
  parameters: JsonSchema;
}

/** The functions to send this turn: meta-tools, always-loaded tools, then tools found so far (in order found). */
export function openAiFunctions(toolbox: Toolbox): FunctionDefinition[] {
  const definitions: AnthropicTool[] = [
    ...toolbox.metaToolDefinitions(),
    ...toolbox.alwaysLoaded().map((t) => t.definition),
    ...toolbox.loadedTools().map((t) => t.definition),
  ];
  return definitions.map((d) => {
    const fn: FunctionDefinition = { name: d.name, parameters: apiSchema(d.input_schema) };
    if (d.description !== undefined) fn.description = d.description;
    return fn;
  });
}

/**
 * A call result as text. `tool_reference` blocks become compact definitions (a search's answer is then a JSON list
 * of them); `search_result` blocks become cited text.
 */
export function toOpenAiText(toolbox: Toolbox, content: string | ResultBlock[]): string {
  if (typeof content === "string") return content;
  const texts: string[] = [];
  const found: { name: string; description: string }[] = [];
  for (const block of content) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "search_result") texts.push(`[${block.title}](${block.source})\n${block.content.map((c) => c.text).join("\n")}`);
    else {
      const tool = toolbox.index.get(block.tool_name);
      found.push({ name: block.tool_name, description: truncateAtWord(tool?.description ?? "", COMPACT_DESCRIPTION_CHARS) });
    }
  }
  if (texts.length === 0) {
    return JSON.stringify({ tools: found, note: "These tools are now callable with their full parameters." });
  }
  if (found.length) texts.push(`Now callable: ${found.map((f) => f.name).join(", ")}.`);
  return texts.join("\n\n");
}

/** Which OpenAI API to drive. */
export type OpenAiApi = "chat" | "responses";

/** Options of one OpenAI run. Modes: `search` (default) and `directory`; `server` is Anthropic's only. */
export interface RunOpenAiAgentOptions extends ToolboxOptions {
  client: OpenAI;
  /** Default `chat` (Chat Completions). */
  api?: OpenAiApi;
  /**
   * How the model finds tools on Responses (search mode): `client` (OpenAI's `tool_search`, run by our engines),
   * `server` (OpenAI's hosted search) or `emulated` (default; the only one on Chat Completions and on models before
   * gpt-5.4).
   */
  toolSearch?: OpenAiToolSearch;
  /** With native tool search: group deferred functions into namespaces by `category` or by your function. Default `none`. */
  groupBy?: GroupBy;
  /** Namespace descriptions by group name; others are generated from the tool names. */
  namespaceDescriptions?: Record<string, string>;
  model: string;
  catalog: ToolIndex;
  /** Your system prompt (Chat: a system message; Responses: `instructions`); directory mode appends the directory. */
  system?: string;
  prompt: string;
  /** Most model requests before the run stops (default 10). */
  maxIterations?: number;
  /** Extra request fields (temperature, …), passed through. */
  extra?: Record<string, unknown>;
  onEvent?: (event: OpenAiAgentEvent) => void;
}

export type OpenAiAgentEvent =
  | { type: "request"; iteration: number; request: ChatParams | ResponsesParams }
  | { type: "tool_call"; name: string; input: unknown; result: CallResult };

/** The result of a run. */
export interface OpenAiAgentRun {
  /** The final answer's text. */
  text: string;
  /** `stop`, `completed` … or `max_iterations`. */
  stopReason: string;
  stats: AgentStats;
  /** Chat messages or Responses input items, ready to continue. */
  conversation: ChatMessage[] | InputItem[];
}

/** Runs the loop on Chat Completions or Responses. Parallel calls of one turn run together. */
export async function runOpenAiAgent(options: RunOpenAiAgentOptions): Promise<OpenAiAgentRun> {
  if (options.mode === "server") throw new ToolsearchError("invalid_option", "server mode is Anthropic's server-side tool search: with OpenAI use toolSearch: \"server\" on the Responses API.");
  const native = nativeToolSearch(options);
  // OpenAI's hosted search replaces our tool_search meta-tool, as Anthropic's server mode does.
  const toolbox = new Toolbox(options.catalog, native === "server" ? { ...options, mode: "server" } : options);
  return (options.api ?? "chat") === "responses" ? runResponses(toolbox, options, native) : runChat(toolbox, options);
}

function nativeToolSearch(options: RunOpenAiAgentOptions): "client" | "server" | undefined {
  const toolSearch = options.toolSearch ?? "emulated";
  if (toolSearch === "emulated") return undefined;
  if (toolSearch !== "client" && toolSearch !== "server") throw new ToolsearchError("invalid_option", `toolSearch must be "client", "server" or "emulated" (got ${JSON.stringify(toolSearch)}).`);
  if ((options.api ?? "chat") !== "responses") throw new ToolsearchError("invalid_option", `toolSearch: "${toolSearch}" needs api: "responses"; Chat Completions has no tool_search, use "emulated".`);
  if ((options.mode ?? "search") !== "search") throw new ToolsearchError("invalid_option", `toolSearch: "${toolSearch}" works in search mode; directory mode makes tools callable with describe_tool (use "emulated").`);
  return toolSearch;
}

function systemText(toolbox: Toolbox, options: RunOpenAiAgentOptions): string | undefined {
  const parts = [options.system, toolbox.mode === "directory" ? toolbox.directoryText() : undefined].filter((p): p is string => !!p);
  return parts.length ? parts.join("\n\n") : undefined;
}

async function runCalls(toolbox: Toolbox, options: RunOpenAiAgentOptions, calls: { id: string; name: string; arguments: string }[]) {
  return Promise.all(
    calls.map(async (call) => {
      const input = parseArguments(call.arguments);
      const result: CallResult = input === undefined
        ? { content: `The arguments of ${call.name} are not valid JSON: send one JSON object.`, isError: true, status: "invalid_input", loaded: [] }
        : await toolbox.call({ name: call.name, input, id: call.id });
      if (input === undefined) toolbox.stats.validationErrors++;
      options.onEvent?.({ type: "tool_call", name: call.name, input, result });
      const text = toOpenAiText(toolbox, result.content);
      return { id: call.id, output: result.isError ? `Error: ${text}` : text };
    }),
  );
}

async function runChat(toolbox: Toolbox, options: RunOpenAiAgentOptions): Promise<OpenAiAgentRun> {
  const stats = toolbox.stats;
  const messages: ChatMessage[] = [];
  const system = systemText(toolbox, options);
  if (system) messages.push({ role: "system", content: system });
  messages.push({ role: "user", content: options.prompt });
  while (stats.iterations < (options.maxIterations ?? 10)) {
    const tools: ChatTool[] = openAiFunctions(toolbox).map((fn) => ({ type: "function", function: fn }));
    const request = { ...options.extra, model: options.model, messages: [...messages], tools } as ChatParams;
    stats.iterations++;
    options.onEvent?.({ type: "request", iteration: stats.iterations, request });
    const completion = await options.client.chat.completions.create(request);
    stats.inputTokens += completion.usage?.prompt_tokens ?? 0;
    stats.outputTokens += completion.usage?.completion_tokens ?? 0;
    stats.cacheReadInputTokens += completion.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    const choice = completion.choices[0];
    const message = choice.message;
    const calls = (message.tool_calls ?? []).filter((c): c is OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall => c.type === "function");
    messages.push({ role: "assistant", content: message.content, ...(calls.length ? { tool_calls: calls } : {}) });
    if (calls.length === 0) return { text: message.content ?? "", stopReason: choice.finish_reason, stats, conversation: messages };
    const outputs = await runCalls(toolbox, options, calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })));
    for (const output of outputs) messages.push({ role: "tool", tool_call_id: output.id, content: output.output });
  }
  return { text: "", stopReason: "max_iterations", stats, conversation: messages };
}

async function runResponses(toolbox: Toolbox, options: RunOpenAiAgentOptions, native?: "client" | "server"): Promise<OpenAiAgentRun> {
  const stats = toolbox.stats;
  const input: InputItem[] = [{ role: "user", content: options.prompt }];
  const instructions = systemText(toolbox, options);
  // Native search: tools are laid out and checked once, and stay the same bytes on every turn.
  const layout = native ? responsesToolLayout(toolbox, { toolSearch: native, groupBy: options.groupBy, descriptions: options.namespaceDescriptions }) : undefined;
  if (layout) throwIfProblems(responsesToolProblems(layout.tools as never[]));
  while (stats.iterations < (options.maxIterations ?? 10)) {
    const tools = layout ? layout.tools : emulatedResponsesTools(toolbox);
    const request = { ...options.extra, model: options.model, input: [...input], tools, ...(instructions ? { instructions } : {}) } as ResponsesParams;
    if (layout) throwIfProblems(responsesInputProblems(request.input));
    stats.iterations++;
    options.onEvent?.({ type: "request", iteration: stats.iterations, request });
    const response = await options.client.responses.create(request);
    stats.inputTokens += response.usage?.input_tokens ?? 0;
    stats.outputTokens += response.usage?.output_tokens ?? 0;
    stats.cacheReadInputTokens += response.usage?.input_tokens_details?.cached_tokens ?? 0;
    input.push(...(response.output as unknown as InputItem[]));
    countServerSearches(toolbox, response.output);
    const searches = response.output.filter((o): o is OpenAI.Responses.ResponseToolSearchCall => o.type === "tool_search_call" && o.execution === "client");
    const calls = response.output.filter((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === "function_call");
    if (calls.length === 0 && (searches.length === 0 || !layout)) return { text: response.output_text ?? "", stopReason: response.status ?? "completed", stats, conversation: input };
    for (const search of searches) input.push(...(await answerSearch(toolbox, options, layout!, search)));
    const outputs = await runCalls(toolbox, options, calls.map((c) => ({ id: c.call_id, name: c.name, arguments: c.arguments })));
    for (const output of outputs) input.push({ type: "function_call_output", call_id: output.id, output: output.output });
  }
  return { text: "", stopReason: "max_iterations", stats, conversation: input };
}

/** Emulated search on Responses: every function sent in full, found tools appended. */
function emulatedResponsesTools(toolbox: Toolbox): FunctionTool[] {
  // strict false: catalog schemas are not written for OpenAI's strict mode (every property required …).
  return openAiFunctions(toolbox).map((fn) => ({ type: "function", name: fn.name, description: fn.description ?? null, parameters: fn.parameters, strict: false }));
}

/**
 * A client `tool_search_call` answered by our `tool_search`: a `tool_search_output` with the tools found. Guidance
 * (no hit, unknown `select:` names, a bad query) has no place in that item, so it follows as a developer message.
 */
async function answerSearch(toolbox: Toolbox, options: RunOpenAiAgentOptions, layout: ResponsesLayout, call: OpenAI.Responses.ResponseToolSearchCall): Promise<InputItem[]> {
  const args = typeof call.arguments === "string" ? parseArguments(call.arguments) : call.arguments;
  const result = await toolbox.call({ name: TOOL_SEARCH, input: args ?? {}, id: call.call_id ?? undefined });
  options.onEvent?.({ type: "tool_call", name: TOOL_SEARCH, input: args, result });
  const found = result.loaded.map((name) => toolbox.index.require(name));
  const items: InputItem[] = [toolSearchOutput(call.call_id, found, layout)];
  const guidance = typeof result.content === "string" ? result.content : result.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
  if (guidance) items.push({ role: "developer", content: `${TOOL_SEARCH}: ${guidance}` });
  return items;
}

/** With OpenAI's hosted search the searches happen at OpenAI: count them and the tools they loaded. */
function countServerSearches(toolbox: Toolbox, output: OpenAI.Responses.ResponseOutputItem[]): void {
  for (const item of output) {
    if (item.type === "tool_search_call" && item.execution === "server") toolbox.stats.searches++;
    if (item.type === "tool_search_output" && item.execution === "server") toolbox.markLoaded(loadedByServerSearch(item).filter((name) => toolbox.index.get(name)));
  }
}

function parseArguments(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text || "{}");
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
