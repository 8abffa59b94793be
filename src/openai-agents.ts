/**
 * `toolsearch/openai-agents`: our engines as the OpenAI Agents SDK's client-executed `toolSearchTool`, and catalogs as
 * deferred Agents SDK function tools. Needs `@openai/agents` (an optional peer dependency); no other toolsearch entry
 * point imports it.
 *
 * @example
 * ```ts
 * import { Agent, run } from "@openai/agents";
 * import { catalogAgentTools, indexedToolSearchTool } from "toolsearch/openai-agents";
 * const agent = new Agent({ name: "Assistant", tools: [indexedToolSearchTool({ index: catalog }), ...catalogAgentTools(catalog, { handlers })] });
 * ```
 */
export {
  catalogAgentTools, indexedToolSearchTool, toolSearchExecutor,
  type AgentsToolSearchOptions, type CatalogAgentToolsOptions,
} from "./agents/openai-agents.js";
export { groupTools, type GroupBy, type GroupOptions, type ToolGroup } from "./agents/namespaces.js";
