/**
 * The definitions of the gateway's own tools, as the MCP client's model sees them. `describe_tool` here takes
 * `{name}` (the MCP gateway's contract) and answers for any tool `search_tools` returned; `search_docs`/`read_doc`
 * come from metatools/docs-tools.ts unchanged.
 */
import type { AnthropicTool } from "../catalog/tool.js";
import { docsToolDefinitions } from "../metatools/docs-tools.js";
import { TOOL_ENGINES } from "../indexes/tool-index-options.js";
import { DEFAULT_SEARCH_RESULTS, MAX_SEARCH_RESULTS } from "../metatools/tool-search.js";

export const SEARCH_TOOLS = "search_tools";
export const DESCRIBE_TOOL = "describe_tool";
export const CALL_TOOL = "call_tool";


export function searchToolsDefinition(): AnthropicTool {
  return {
    name: SEARCH_TOOLS,
    description: [
      "Find tools across every connected MCP server (and the static catalog) by describing what you need to do.",
      "Call it whenever you need a capability your current tools lack, before telling the user something cannot be done.",
      `Returns up to ${MAX_SEARCH_RESULTS} tools, best first, each with its name (server__tool), a short description, its server and its inputSchema; run one with ${CALL_TOOL}.`,
      "Pass a few specific keywords about the action and the object (e.g. 'write file', 'create entity relation'), not the whole conversation; when nothing fits, try synonyms.",
    ].join(" "),
    input_schema: {
      type: "object",
      properties: {
        query: { type: "string", description: "What the tool should do, in a few keywords, e.g. 'read file' — or a regular expression when engine is 'regex'; 'select:name1,name2' returns those tools by exact name." },
        limit: { type: "integer", minimum: 1, maximum: MAX_SEARCH_RESULTS, description: `How many tools to return (default ${DEFAULT_SEARCH_RESULTS}).` },
        engine: { type: "string", enum: [...TOOL_ENGINES], description: "Ranking engine: 'bm25' keywords (default), 'regex' pattern over names and descriptions, 'semantic' by meaning (embeddings; the first such search loads the model), 'hybrid' both." },
      },
      required: ["query"],
      additionalProperties: false,
    },
  };
}

export function describeToolDefinition(): AnthropicTool {
  return {
    name: DESCRIBE_TOOL,
    description: [
      `Get the full definition of one tool found with ${SEARCH_TOOLS}: its complete description, input schema and server.`,
      `Use it when a search result's short description is not enough to decide or to fill in the arguments. An unknown name is an error that suggests the closest names.`,
    ].join(" "),
    input_schema: {
      type: "object",
      properties: { name: { type: "string", description: `Exact tool name as ${SEARCH_TOOLS} returned it, e.g. 'filesystem__read_text_file'.` } },
      required: ["name"],
      additionalProperties: false,
    },
  };
}

export function callToolDefinition(): AnthropicTool {
  return {
    name: CALL_TOOL,
    description: [
      `Run a tool of a connected MCP server by the name ${SEARCH_TOOLS} returned, with arguments matching its inputSchema.`,
      "The arguments are checked first: a mismatch comes back as an error naming each field to fix, and nothing is run.",
      "Returns the tool's own result (or its error) unchanged. A server that is down or restarting is reported as such; try again later or use another tool.",
    ].join(" "),
    input_schema: {
      type: "object",
      properties: {
        name: { type: "string", description: "Tool name from search results, e.g. 'filesystem__write_file'." },
        arguments: { type: "object", description: "The tool's arguments, matching its inputSchema.", additionalProperties: true },
      },
      required: ["name"],
      additionalProperties: false,
    },
  };
}

/** The gateway's tools, in the order they are listed. */
export function gatewayToolDefinitions(options: { docs?: boolean } = {}): AnthropicTool[] {
  const tools = [searchToolsDefinition(), describeToolDefinition(), callToolDefinition()];
  return options.docs ? [...tools, ...docsToolDefinitions()] : tools;
}
