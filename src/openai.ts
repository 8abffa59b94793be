/**
 * `toolsearch/openai`: tool search, the tool directory and validated tool calls for OpenAI's Chat Completions and
 * Responses APIs.
 *
 * @example
 * ```ts
 * import OpenAI from "openai";
 * import { ToolIndex } from "toolsearch";
 * import { runOpenAiAgent } from "toolsearch/openai";
 * const run = await runOpenAiAgent({ client: new OpenAI(), api: "responses", model: "gpt-5", catalog, handlers, prompt: "…" });
 * ```
 */
export {
  openAiFunctions, runOpenAiAgent, toOpenAiText,
  type FunctionDefinition, type OpenAiAgentEvent, type OpenAiAgentRun, type OpenAiApi, type RunOpenAiAgentOptions,
} from "./agents/openai.js";
export { Toolbox, emptyStats, type AgentStats, type CallResult, type ToolboxOptions, type ToolMode } from "./agents/toolbox.js";
export * from "./metatools/index.js";
export * from "./execution/index.js";
export {
  checkResponsesRequest, loadedByServerSearch, responsesToolLayout, toolSearchOutput,
  type OpenAiToolSearch, type ResponsesLayout, type ResponsesLayoutOptions,
} from "./agents/openai-tool-search.js";
export { groupTools, namespaceName, type GroupBy, type GroupOptions, type ToolGroup } from "./agents/namespaces.js";
export { parseSelect, resolveSelect, type Selection } from "./metatools/select.js";
