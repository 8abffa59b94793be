/**
 * `describe_tool`: the directory pattern's meta-tool. The system prompt lists tool names (see directory.ts); the model
 * calls `describe_tool` with one of them, gets the full definition back, and the tool becomes callable through the
 * `tool_reference` block that comes with it.
 */
import type { AnthropicTool } from "../catalog/tool.js";
import type { ToolIndex } from "../indexes/tool-index.js";
import { type MetaTool, type MetaToolResult, textBlock, toolReference } from "./types.js";

export const DESCRIBE_TOOL = "describe_tool";

/** The definition the model sees. */
export function describeToolDefinition(): AnthropicTool {
  return {
    name: DESCRIBE_TOOL,
    description: [
      "Get the full definition of one tool from the tool directory in the system prompt: its complete description and input schema.",
      "Call it before using any listed tool you have not described yet; after it answers, the tool is callable with the parameters its schema gives.",
      "Pass the exact name as the directory lists it. An unknown name is an error that suggests the closest names.",
    ].join(" "),
    input_schema: {
      type: "object",
      properties: {
        tool_name: { type: "string", description: "Exact tool name from the directory, e.g. 'get_stock_level'." },
      },
      required: ["tool_name"],
      additionalProperties: false,
    },
  };
}

/** Returns the full definition as JSON text plus a reference that makes the tool callable. */
export async function handleDescribeTool(index: ToolIndex, input: Record<string, unknown>): Promise<MetaToolResult> {
  const name = typeof input.tool_name === "string" ? input.tool_name.trim() : "";
  if (!name) return { content: `${DESCRIBE_TOOL} needs a tool_name from the directory, e.g. {"tool_name": "get_stock_level"}.`, isError: true };
  const definition = index.describe(name);
  if (!definition) {
    const near = index.closestNames(name);
    const hint = near.length ? ` Did you mean: ${near.join(", ")}?` : "";
    return { content: `Unknown tool ${JSON.stringify(name)}.${hint} Use a name exactly as the tool directory lists it.`, isError: true };
  }
  const { name: _n, description, input_schema } = definition;
  const text = JSON.stringify({ name, description: description ?? "", input_schema });
  return { content: [textBlock(text), toolReference(name)], isError: false };
}

/** `describe_tool` as a meta-tool over an index. */
export function describeToolTool(index: ToolIndex): MetaTool {
  return { kind: "describe_tool", definition: describeToolDefinition(), handle: (input) => handleDescribeTool(index, input) };
}
