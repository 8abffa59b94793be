/**
 * The Anthropic adapter: builds Messages API requests for the three modes, checks them against the API's rules
 * before they are sent, turns call results into `tool_result` blocks, and runs the agent loop on the official SDK.
 *
 * @example
 * ```ts
 * import Anthropic from "@anthropic-ai/sdk";
 * import { ToolIndex } from "toolsearch";
 * import { runAgent } from "toolsearch/anthropic";
 *
 * const run = await runAgent({
 *   client: new Anthropic(), model: "claude-sonnet-4-5", catalog: await ToolIndex.fromFile("catalog.json"),
 *   handlers: { get_weather: ({ location }) => ({ location, temperature_c: 21 }) },
 *   prompt: "What is the weather in Paris?",
 * });
 * console.log(run.text, run.stats);
 * ```
 */
import type Anthropic from "@anthropic-ai/sdk";
import { apiSchema } from "../catalog/api-schema.js";
import type { AnthropicTool, Tool } from "../catalog/tool.js";
import { TOOL_NAME_PATTERN } from "../catalog/validate.js";
import { ToolsearchError } from "../errors.js";
import type { ToolIndex } from "../indexes/tool-index.js";
import type { ResultBlock } from "../metatools/types.js";
import { throwIfProblems } from "./request-problems.js";
import { type AgentStats, type CallResult, Toolbox, type ToolboxOptions } from "./toolbox.js";

type MessageParam = Anthropic.Messages.MessageParam;
type Message = Anthropic.Messages.Message;
type CreateParams = Anthropic.Messages.MessageCreateParamsNonStreaming;
type ToolUnion = Anthropic.Messages.ToolUnion;
type ToolResultBlockParam = Anthropic.Messages.ToolResultBlockParam;
type TextBlockParam = Anthropic.Messages.TextBlockParam;

/** Anthropic's server-side tool search tools, by engine. */
export const SERVER_TOOL_SEARCH = {
  bm25: { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
  regex: { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" },
} as const;

/** Options of one request. */
export interface AnthropicRequestOptions {
  model: string;
  messages: MessageParam[];
  /** Default 1024. */
  maxTokens?: number;
  /** Your system prompt; the directory block (directory mode) follows it. */
  system?: string;
  /**
   * Put a prompt-cache breakpoint at the end of the fixed prefix (the last system block, else the last non-deferred
   * tool). Default true: the prefix never changes as tools are found, so it is worth caching.
   */
  cache?: boolean;
  /** Which server-side search to use in server mode (default `bm25`). */
  serverSearch?: "bm25" | "regex";
  /**
   * `anthropic-beta` values to send with every request (default none). Tool search, `defer_loading` and
   * `tool_reference` are in the current Messages API and need no beta; give one here only for a platform or proxy
   * that still asks for it.
   */
  betas?: string[];
  /** Any other request fields (temperature, metadata, tool_choice …), passed through. */
  extra?: Partial<Omit<CreateParams, "model" | "messages" | "tools" | "system" | "max_tokens">>;
}

/** Builds the request: meta-tools and always-loaded tools in full, every other catalog tool deferred. */
export function buildAnthropicRequest(toolbox: Toolbox, options: AnthropicRequestOptions): CreateParams {
  const cache = options.cache ?? true;
  const front: ToolUnion[] = [];
  if (toolbox.mode === "server") front.push({ ...SERVER_TOOL_SEARCH[options.serverSearch ?? "bm25"] } as ToolUnion);
  for (const definition of toolbox.metaToolDefinitions()) front.push(asTool(definition));
  for (const tool of toolbox.alwaysLoaded()) front.push(asTool(tool.definition));
  const deferred = toolbox.deferred().map((tool) => ({ ...asTool(tool.definition), defer_loading: true }) as ToolUnion);

  const system: TextBlockParam[] = [];
  if (options.system) system.push({ type: "text", text: options.system });
  if (toolbox.mode === "directory") system.push({ type: "text", text: toolbox.directoryText() });
  if (cache) {
    if (system.length) system[system.length - 1] = { ...system[system.length - 1], cache_control: { type: "ephemeral" } };
    else if (front.length) front[front.length - 1] = { ...front[front.length - 1], cache_control: { type: "ephemeral" } } as ToolUnion;
  }
  const request: CreateParams = {
    ...options.extra,
    model: options.model,
    max_tokens: options.maxTokens ?? 1024,
    tools: [...front, ...deferred],
    messages: options.messages,
  };
  if (system.length) request.system = system;
  return request;
}

/**
 * Checks the API's rules for deferred loading before a request is sent, so a mistake is reported here, in words,
 * rather than as a 400 from the API: at least one tool is not deferred; no deferred tool carries `cache_control`;
 * every `tool_reference` names a tool in `tools`; custom tool names are valid and unique.
 * Throws `request_invalid` listing every broken rule.
 */
export function checkAnthropicRequest(request: Pick<CreateParams, "tools" | "messages">): void {
  const tools = sentTools(request.tools);
  throwIfProblems([...toolProblems(tools), ...referenceProblems(new Set(tools.map((t) => t.name)), request.messages)]);
}

type SentTool = { name: string; defer_loading?: boolean; cache_control?: unknown; type?: string };

function sentTools(tools: CreateParams["tools"]): SentTool[] {
  return (tools ?? []) as unknown as SentTool[];
}

/** The rules about `tools` alone (checked once per run: `tools` does not change while the loop runs). */
function toolProblems(tools: SentTool[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  for (const [i, tool] of tools.entries()) {
    const custom = tool.type === undefined || tool.type === "custom";
    if (custom && !TOOL_NAME_PATTERN.test(tool.name)) problems.push(`tools[${i}]: name ${JSON.stringify(tool.name)} must match ^[a-zA-Z0-9_-]{1,64}$`);
    if (names.has(tool.name)) problems.push(`tools[${i}]: name ${JSON.stringify(tool.name)} is used twice`);
    names.add(tool.name);
    if (tool.defer_loading && tool.cache_control) problems.push(`tools[${i}] (${tool.name}): a deferred tool cannot carry cache_control; remove it, or list the tool in alwaysLoad`);
  }
  if (tools.length > 0 && tools.every((t) => t.defer_loading)) {
    problems.push("every tool is deferred: at least one tool (the search meta-tool, or an always-loaded tool) must be sent with defer_loading false");
  }
  return problems;
}

/** Every `tool_reference` in the conversation must name a tool in `tools`. */
function referenceProblems(names: Set<string>, messages: MessageParam[]): string[] {
  const problems: string[] = [];
  for (const name of referencedNames(messages)) {
    if (!names.has(name)) problems.push(`a tool_reference names ${JSON.stringify(name)}, which is not in tools`);
  }
  return problems;
}

/** Every tool name referenced in the conversation: in our `tool_result`s and in server search results. */
function referencedNames(messages: MessageParam[]): Set<string> {
  const names = new Set<string>();
  for (const message of messages) {
    if (typeof message.content === "string") continue;
    for (const block of message.content as unknown as Record<string, unknown>[]) {
      if (block.type === "tool_result" && Array.isArray(block.content)) {
        for (const inner of block.content as Record<string, unknown>[]) if (inner.type === "tool_reference") names.add(String(inner.tool_name));
      }
      if (block.type === "tool_search_tool_result") {
        const refs = (block.content as { tool_references?: { tool_name: string }[] })?.tool_references ?? [];
        for (const ref of refs) names.add(ref.tool_name);
      }
    }
  }
  return names;
}

/** One call result as a `tool_result` block. */
export function toAnthropicToolResult(toolUseId: string, result: { content: string | ResultBlock[]; isError: boolean }): ToolResultBlockParam {
  const block: ToolResultBlockParam = {
    type: "tool_result",
    tool_use_id: toolUseId,
    content: typeof result.content === "string" ? result.content : (result.content as ToolResultBlockParam["content"]),
  };
  if (result.isError) block.is_error = true;
  return block;
}

/** Something that happened during a run, for logging and examples. */
export type AgentEvent =
  | { type: "request"; iteration: number; request: CreateParams }
  | { type: "response"; iteration: number; message: Message }
  | { type: "tool_call"; name: string; input: unknown; result: CallResult };

/** Options of `runAgent`. */
export interface RunAgentOptions extends ToolboxOptions, Omit<AnthropicRequestOptions, "messages"> {
  /** An `Anthropic` client (its `baseURL`, key and retries are yours to set). */
  client: Anthropic;
  /** The searchable catalog. */
  catalog: ToolIndex;
  /** The user's message; or give `messages`. */
  prompt?: string;
  messages?: MessageParam[];
  /** Most model requests before the run stops (default 10). */
  maxIterations?: number;
  /** Called for each request, response and tool call. */
  onEvent?: (event: AgentEvent) => void;
  /** Stream each response (`messages.stream`); the loop still acts on whole messages. Default false. */
  stream?: boolean;
  /** With `stream`, called with each piece of text as it arrives. */
  onText?: (delta: string) => void;
}

/** The result of a run. */
export interface AgentRun {
  /** The last response. */
  message: Message;
  /** Its text blocks joined. */
  text: string;
  /** The whole conversation, ready to continue. */
  messages: MessageParam[];
  /** `end_turn`, `max_tokens` … or `max_iterations` when the loop gave up. */
  stopReason: string;
  stats: AgentStats;
}

/**
 * Runs the loop: send, run every tool call of the turn (in parallel), send the results back, until the model stops
 * calling tools or `maxIterations` requests were made.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const toolbox = new Toolbox(options.catalog, options);
  const messages: MessageParam[] = options.messages ? [...options.messages] : [];
  if (options.prompt !== undefined) messages.push({ role: "user", content: options.prompt });
  if (messages.length === 0) throw new ToolsearchError("invalid_option", "runAgent needs a prompt or messages.");
  const maxIterations = options.maxIterations ?? 10;
  const stats = toolbox.stats;
  // Tools and system are built and checked once: they stay the same objects, and the same bytes, on every turn.
  const { messages: _none, ...fixed } = buildAnthropicRequest(toolbox, { ...options, messages: [] });
  const tools = sentTools(fixed.tools);
  throwIfProblems(toolProblems(tools));
  const toolNames = new Set(tools.map((t) => t.name));
  let last: Message | undefined;
  while (stats.iterations < maxIterations) {
    const request: CreateParams = { ...fixed, messages: [...messages] };
    throwIfProblems(referenceProblems(toolNames, request.messages));
    stats.iterations++;
    options.onEvent?.({ type: "request", iteration: stats.iterations, request });
    const message = await send(options, request);
    options.onEvent?.({ type: "response", iteration: stats.iterations, message });
    last = message;
    countUsage(stats, message);
    countServerSearches(toolbox, message);
    // Server blocks (server_tool_use, tool_search_tool_result) go back exactly as they came.
    messages.push({ role: "assistant", content: message.content as unknown as MessageParam["content"] });
    if (message.stop_reason === "pause_turn") continue;
    const calls = message.content.filter((b): b is Anthropic.Messages.ToolUseBlock => b.type === "tool_use");
    if (message.stop_reason !== "tool_use" || calls.length === 0) return finish(message, messages, message.stop_reason ?? "end_turn", stats);
    const results = await Promise.all(
      calls.map(async (call) => {
        const result = await toolbox.call({ name: call.name, input: call.input, id: call.id });
        options.onEvent?.({ type: "tool_call", name: call.name, input: call.input, result });
        return toAnthropicToolResult(call.id, result);
      }),
    );
    messages.push({ role: "user", content: results });
  }
  return finish(last!, messages, "max_iterations", stats);
}

/** One request, streamed or not; either way the whole message comes back. */
async function send(options: RunAgentOptions, request: CreateParams): Promise<Message> {
  const requestOptions = options.betas?.length ? { headers: { "anthropic-beta": options.betas.join(",") } } : undefined;
  if (!options.stream) return options.client.messages.create(request, requestOptions);
  const stream = options.client.messages.stream(request, requestOptions);
  if (options.onText) stream.on("text", (delta) => options.onText!(delta));
  return stream.finalMessage();
}

function finish(message: Message, messages: MessageParam[], stopReason: string, stats: AgentStats): AgentRun {
  const text = message.content.filter((b): b is Anthropic.Messages.TextBlock => b.type === "text").map((b) => b.text).join("");
  return { message, text, messages, stopReason, stats };
}

function countUsage(stats: AgentStats, message: Message): void {
  const usage = message.usage;
  if (!usage) return;
  stats.inputTokens += usage.input_tokens ?? 0;
  stats.outputTokens += usage.output_tokens ?? 0;
  stats.cacheReadInputTokens += usage.cache_read_input_tokens ?? 0;
  stats.cacheCreationInputTokens += usage.cache_creation_input_tokens ?? 0;
}

/** In server mode the searches happen at Anthropic: count them and the tools they returned. */
function countServerSearches(toolbox: Toolbox, message: Message): void {
  for (const block of message.content as unknown as Record<string, unknown>[]) {
    if (block.type === "server_tool_use" && String(block.name).startsWith("tool_search_tool_")) toolbox.stats.searches++;
    if (block.type === "tool_search_tool_result") {
      const refs = (block.content as { tool_references?: { tool_name: string }[] })?.tool_references ?? [];
      toolbox.markLoaded(refs.map((r) => r.tool_name));
    }
  }
}

function asTool(definition: AnthropicTool): ToolUnion {
  // The API checks schemas against draft 2020-12: draft-04 bounds are sent in their later form (api-schema.ts).
  return { ...definition, input_schema: apiSchema(definition.input_schema) } as unknown as ToolUnion;
}

export type { Tool };
