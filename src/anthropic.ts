/**
 * `toolsearch/anthropic`: tool search, the tool directory and validated tool calls for Anthropic's Messages API.
 *
 * @example
 * ```ts
 * import Anthropic from "@anthropic-ai/sdk";
 * import { ToolIndex } from "toolsearch";
 * import { runAgent } from "toolsearch/anthropic";
 * const run = await runAgent({ client: new Anthropic(), model: "claude-sonnet-4-5", catalog: await ToolIndex.fromFile("catalog.json"), handlers, prompt: "…" });
 * ```
 */
export {
  buildAnthropicRequest, checkAnthropicRequest, runAgent, SERVER_TOOL_SEARCH, toAnthropicToolResult,
  type AgentEvent, type AgentRun, type AnthropicRequestOptions, type RunAgentOptions,
} from "./agents/anthropic.js";
export { Toolbox, emptyStats, type AgentStats, type CallResult, type ToolboxOptions, type ToolMode } from "./agents/toolbox.js";
export * from "./metatools/index.js";
export * from "./execution/index.js";
