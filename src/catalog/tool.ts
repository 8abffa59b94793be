/** The one internal model every tool shape is normalized to. */

/** A JSON Schema object, as given by the user (never rewritten). */
export type JsonSchema = Record<string, unknown>;

/** The wire shape a tool arrived in; detected per item, so a catalog may mix them. */
export type ToolShape = "anthropic" | "openai-chat" | "openai-responses" | "mcp";

/** A tool definition in Anthropic's API shape: what `describe` returns. */
export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: JsonSchema;
  [apiField: string]: unknown;
}

/** A tool as toolsearch holds it, whatever shape it came in. */
export interface Tool {
  name: string;
  /** The description, or "" when the source had none. */
  description: string;
  /** The input JSON Schema (Anthropic `input_schema`, OpenAI `parameters`, MCP `inputSchema`). */
  inputSchema: JsonSchema;
  /** Optional grouping, outside the API definition. */
  category?: string;
  /** MCP's human-readable title, when given. */
  title?: string;
  /** The shape it was given in. */
  shape: ToolShape;
  /** The definition in Anthropic shape, built only from fields the user gave (no invented fields). */
  definition: AnthropicTool;
  /** Fields that are not part of the tool's API shape (`category`, `source_name`, MCP `annotations` …), kept apart. */
  extras: Record<string, unknown>;
}
