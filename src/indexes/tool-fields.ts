/**
 * What of a tool is searched: the fields of SPEC §2 as plain texts, in one fixed order shared by the BM25F engine,
 * the regex engine and the field weights.
 */
import type { JsonSchema, Tool } from "../catalog/tool.js";

/** The searchable texts of a tool, one entry per field. */
export interface ToolTexts {
  name: string;
  description: string;
  paramNames: string;
  paramDescriptions: string;
  enumValues: string;
  category: string;
}

export const TOOL_FIELDS = ["name", "description", "paramNames", "paramDescriptions", "enumValues", "category"] as const;

interface Collected {
  names: string[];
  descriptions: string[];
  enums: string[];
}

const NESTED_KEYS = ["items", "additionalProperties", "anyOf", "oneOf", "allOf"] as const;

/**
 * Walks a schema's properties (nested objects, arrays and unions included) up to a few levels deep. Plain loops, no
 * entry arrays or callbacks: a catalog build walks every tool's schema while V8 is still interpreting this.
 */
function collect(schema: unknown, out: Collected, depth: number): void {
  if (depth > 4 || typeof schema !== "object" || schema === null) return;
  if (Array.isArray(schema)) {
    for (let i = 0; i < schema.length; i++) collect(schema[i], out, depth);
    return;
  }
  const node = schema as JsonSchema;
  if (typeof node.description === "string" && depth > 0) out.descriptions.push(node.description);
  const values = node.enum;
  if (Array.isArray(values)) {
    for (let i = 0; i < values.length; i++) {
      const value = values[i];
      if (typeof value === "string" || typeof value === "number") out.enums.push(String(value));
    }
  }
  if (typeof node.const === "string") out.enums.push(node.const);
  const properties = node.properties;
  if (typeof properties === "object" && properties !== null) {
    const names = Object.keys(properties);
    for (let i = 0; i < names.length; i++) {
      out.names.push(names[i]);
      collect((properties as Record<string, unknown>)[names[i]], out, depth + 1);
    }
  }
  for (let k = 0; k < NESTED_KEYS.length; k++) {
    const nested = node[NESTED_KEYS[k]];
    if (nested !== undefined) collect(nested, out, depth + 1);
  }
}

/** The searchable texts of a tool. */
export function toolTexts(tool: Tool): ToolTexts {
  const out: Collected = { names: [], descriptions: [], enums: [] };
  collect(tool.inputSchema, out, 0);
  return {
    name: tool.title ? `${tool.name} ${tool.title}` : tool.name,
    description: tool.description,
    paramNames: out.names.join(" "),
    paramDescriptions: out.descriptions.join("\n"),
    enumValues: out.enums.join(" "),
    category: tool.category ?? "",
  };
}

/** Names of the regex engine's fields, in the order of `regexFields`. */
export const REGEX_FIELD_NAMES = ["name", "description", "parameters"] as const;

/** The texts the regex engine searches, in ranking order: name, description, parameters (names and descriptions). */
export function regexFields(tool: Tool, texts: ToolTexts): string[] {
  const params = [texts.paramNames, texts.paramDescriptions].filter(Boolean).join("\n");
  return [tool.name, texts.description, params];
}
