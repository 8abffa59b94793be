/**
 * The OpenAI adapter, for Chat Completions and Responses on the official `openai` SDK. OpenAI has no
 * `tool_reference`, so a search answers with compact definitions of its hits (name and a short description) and the
 * loop adds those tools, in full, to `tools` for the next turn. Validation, execution and stats are the Toolbox's,
 * the same as with Anthropic.
 *
 * @example
 * ```ts
 * import OpenAI from "openai";
 * import { runOpenAiAgent } from "toolsearch/openai";
 * const run = await runOpenAiAgent({ client: new OpenAI(), api: "responses", model: "gpt-5", catalog, handlers, prompt: "…" });
 * ```
 */
import type OpenAI from "openai";
import { apiSchema } from "../catalog/api-schema.js";
import type { AnthropicTool, JsonSchema } from "../catalog/tool.js";
import { ToolsearchError } from "../errors.js";
import type { ToolIndex } from "../indexes/tool-index.js";
import type { ResultBlock } from "../metatools/types.js";
import { truncateAtWord } from "../text/truncate.js";
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
  if (options.mode === "server") throw new ToolsearchError("invalid_option", "server mode is Anthropic's server-side tool search: use search or directory mode with OpenAI.");
  const toolbox = new Toolbox(options.catalog, options);
  return (options.api ?? "chat") === "responses" ? runResponses(toolbox, options) : runChat(toolbox, options);
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

async function runResponses(toolbox: Toolbox, options: RunOpenAiAgentOptions): Promise<OpenAiAgentRun> {
  const stats = toolbox.stats;
  const input: InputItem[] = [{ role: "user", content: options.prompt }];
  const instructions = systemText(toolbox, options);
  while (stats.iterations < (options.maxIterations ?? 10)) {
    // strict false: catalog schemas are not written for OpenAI's strict mode (every property required …).
    const tools: FunctionTool[] = openAiFunctions(toolbox).map((fn) => ({ type: "function", name: fn.name, description: fn.description ?? null, parameters: fn.parameters, strict: false }));
    const request = { ...options.extra, model: options.model, input: [...input], tools, ...(instructions ? { instructions } : {}) } as ResponsesParams;
    stats.iterations++;
    options.onEvent?.({ type: "request", iteration: stats.iterations, request });
    const response = await options.client.responses.create(request);
    stats.inputTokens += response.usage?.input_tokens ?? 0;
    stats.outputTokens += response.usage?.output_tokens ?? 0;
    stats.cacheReadInputTokens += response.usage?.input_tokens_details?.cached_tokens ?? 0;
    input.push(...(response.output as unknown as InputItem[]));
    const calls = response.output.filter((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === "function_call");
    if (calls.length === 0) return { text: response.output_text ?? "", stopReason: response.status ?? "completed", stats, conversation: input };
    const outputs = await runCalls(toolbox, options, calls.map((c) => ({ id: c.call_id, name: c.name, arguments: c.arguments })));
    for (const output of outputs) input.push({ type: "function_call_output", call_id: output.id, output: output.output });
  }
  return { text: "", stopReason: "max_iterations", stats, conversation: input };
}

function parseArguments(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text || "{}");
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
