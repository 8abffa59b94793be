/**
 * Tool shapes: Anthropic, OpenAI Chat, OpenAI Responses and MCP, detected per item and normalized to one `Tool`.
 */
import type { AnthropicTool, JsonSchema, Tool, ToolShape } from "./tool.js";

/** Fields Anthropic's API accepts on a custom tool; anything else given with an Anthropic-shape tool is kept apart. */
const ANTHROPIC_API_FIELDS = new Set([
  "name", "description", "input_schema", "cache_control", "type", "strict", "input_examples", "defer_loading",
]);
/** Fields of an OpenAI function definition (Chat `function` object, or the Responses tool itself). */
const OPENAI_FUNCTION_FIELDS = new Set(["name", "description", "parameters", "strict", "type"]);
/** Fields of an MCP `Tool`. */
const MCP_FIELDS = new Set(["name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta", "icons"]);

/** A schema for a tool that takes no parameters, used only where a shape lets `parameters` be left out. */
const NO_PARAMETERS: JsonSchema = { type: "object", properties: {} };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Which shape an item is in, or a sentence saying why none fits.
 * The keys decide: `function` object → OpenAI Chat; `type:"function"` with `name` → OpenAI Responses;
 * `inputSchema` → MCP; otherwise `input_schema` or a bare `{name, description}` → Anthropic.
 */
export function detectShape(item: unknown): ToolShape | { error: string } {
  if (!isRecord(item)) return { error: "a tool must be a JSON object" };
  if (item.type === "function" && isRecord(item.function)) return "openai-chat";
  if (item.type === "function" && "name" in item) return "openai-responses";
  if ("inputSchema" in item) return "mcp";
  if ("input_schema" in item) return "anthropic";
  if ("parameters" in item && "name" in item) return "openai-responses";
  return {
    error:
      "unknown tool shape: expected Anthropic {name, description, input_schema}, OpenAI {type:\"function\", function:{…}} " +
      "or {type:\"function\", name, parameters}, or MCP {name, inputSchema}",
  };
}

function split(source: Record<string, unknown>, apiFields: Set<string>) {
  const api: Record<string, unknown> = {};
  const extras: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) (apiFields.has(key) ? api : extras)[key] = value;
  return { api, extras };
}

/** The fields every shape yields, before validation checks their types. */
interface RawTool {
  name: unknown;
  description: unknown;
  schema: unknown;
  title?: unknown;
  definition: Record<string, unknown>;
  extras: Record<string, unknown>;
}

function fromAnthropic(item: Record<string, unknown>): RawTool {
  const { api, extras } = split(item, ANTHROPIC_API_FIELDS);
  return { name: item.name, description: item.description, schema: item.input_schema, definition: api, extras };
}

function fromOpenAiFunction(fn: Record<string, unknown>, outer: Record<string, unknown>): RawTool {
  const { extras } = split(fn, OPENAI_FUNCTION_FIELDS);
  const { extras: outerExtras } = split(outer, new Set(["type", "function"]));
  const schema = fn.parameters === undefined ? NO_PARAMETERS : fn.parameters;
  const definition: Record<string, unknown> = { name: fn.name };
  if (fn.description !== undefined) definition.description = fn.description;
  definition.input_schema = schema;
  return { name: fn.name, description: fn.description, schema, definition, extras: { ...outerExtras, ...extras } };
}

function fromMcp(item: Record<string, unknown>): RawTool {
  const { extras } = split(item, MCP_FIELDS);
  for (const key of ["title", "outputSchema", "annotations", "_meta", "icons"]) {
    if (key in item) extras[key] = item[key];
  }
  const definition: Record<string, unknown> = { name: item.name };
  if (item.description !== undefined) definition.description = item.description;
  definition.input_schema = item.inputSchema;
  return { name: item.name, description: item.description, schema: item.inputSchema, title: item.title, definition, extras };
}

/** Pulls the shape-specific fields of an item into one raw form; types are checked afterwards by `validate`. */
export function readShape(item: Record<string, unknown>, shape: ToolShape): RawTool {
  switch (shape) {
    case "anthropic":
      return fromAnthropic(item);
    case "openai-chat":
      return fromOpenAiFunction(item.function as Record<string, unknown>, item);
    case "openai-responses":
      return fromOpenAiFunction(item, {});
    case "mcp":
      return fromMcp(item);
  }
}

/** Builds the internal `Tool` from a raw form whose fields have been validated. */
export function toTool(raw: RawTool, shape: ToolShape): Tool {
  const extras = { ...raw.extras };
  const category = typeof extras.category === "string" ? extras.category : undefined;
  const tool: Tool = {
    name: raw.name as string,
    description: typeof raw.description === "string" ? raw.description : "",
    inputSchema: raw.schema as JsonSchema,
    shape,
    definition: raw.definition as AnthropicTool,
    extras,
  };
  if (category !== undefined) tool.category = category;
  if (typeof raw.title === "string") tool.title = raw.title;
  return tool;
}

/** A tool in OpenAI Chat Completions shape. */
export function toOpenAiChat(tool: Tool): { type: "function"; function: { name: string; description?: string; parameters: JsonSchema } } {
  const fn: { name: string; description?: string; parameters: JsonSchema } = { name: tool.name, parameters: tool.inputSchema };
  if (tool.definition.description !== undefined) fn.description = tool.description;
  return { type: "function", function: fn };
}

/** A tool in MCP `Tool` shape. */
export function toMcp(tool: Tool): { name: string; title?: string; description?: string; inputSchema: JsonSchema } {
  const out: { name: string; title?: string; description?: string; inputSchema: JsonSchema } = { name: tool.name, inputSchema: tool.inputSchema };
  if (tool.title !== undefined) out.title = tool.title;
  if (tool.definition.description !== undefined) out.description = tool.description;
  return out;
}
