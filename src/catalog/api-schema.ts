/**
 * Input schemas as the model APIs check them. Anthropic's API checks every tool's `input_schema` against JSON Schema
 * 2020-12 and refuses the whole request for one draft-04 boolean `exclusiveMinimum`, which real MCP servers emit and
 * toolsearch accepts (json-schema.ts). So before a definition is sent, a draft-04 schema's boolean bounds become the
 * numeric bounds of later drafts, with the same meaning; every other schema is sent exactly as given.
 *
 * @example
 * ```ts
 * apiSchema({ type: "object", properties: { n: { type: "integer", minimum: 0, exclusiveMinimum: true } } });
 * // { type: "object", properties: { n: { type: "integer", exclusiveMinimum: 0 } } }
 * ```
 */
import { schemaDraftCheck, schemaSizeProblem } from "./json-schema.js";
import type { JsonSchema } from "./tool.js";

// Keywords whose value is a subschema, a list of subschemas, or a map of them: the only places bounds are rewritten,
// so that a property that happens to be named "exclusiveMinimum" is left alone.
const ONE = ["items", "additionalItems", "additionalProperties", "contains", "not", "if", "then", "else", "propertyNames", "unevaluatedItems", "unevaluatedProperties"];
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const MAP = ["properties", "patternProperties", "definitions", "$defs", "dependentSchemas", "dependencies"];
const BOUNDS = [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const;

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A copy of `node` with draft-04 bounds rewritten, or `node` itself when nothing changes. */
function rewrite(node: Node): Node {
  let out: Node | undefined;
  const set = (key: string, value: unknown) => ((out ??= { ...node })[key] = value);
  for (const key of ONE) if (isNode(node[key])) {
    const child = rewrite(node[key]);
    if (child !== node[key]) set(key, child);
  }
  for (const key of LIST) if (Array.isArray(node[key])) {
    const list = node[key] as unknown[];
    const children = list.map((c) => (isNode(c) ? rewrite(c) : c));
    if (children.some((c, i) => c !== list[i])) set(key, children);
  }
  for (const key of MAP) if (isNode(node[key])) {
    const map = node[key];
    const entries = Object.entries(map).map(([k, c]) => [k, isNode(c) ? rewrite(c) : c] as const);
    if (entries.some(([k, c]) => c !== map[k])) set(key, Object.fromEntries(entries));
  }
  for (const [flag, bound] of BOUNDS) {
    if (typeof node[flag] !== "boolean") continue;
    const target = (out ??= { ...node });
    delete target[flag];
    if (node[flag] === true && typeof node[bound] === "number") {
      target[flag] = node[bound];
      delete target[bound];
    }
  }
  return out ?? node;
}

const converted = new WeakMap<JsonSchema, JsonSchema>();

/** The schema to send to a model API: draft-04 bounds made numeric (without `$schema`), else the schema as given. */
export function apiSchema(schema: JsonSchema): JsonSchema {
  let result = converted.get(schema);
  if (result) return result;
  result = schema;
  if (!schemaSizeProblem(schema) && schemaDraftCheck(schema).draft === "draft-04") {
    const { $schema: _draft04, ...rest } = rewrite(schema);
    result = rest;
  }
  converted.set(schema, result);
  return result;
}
