/**
 * OpenAPI schema objects as plain JSON Schema. OpenAPI 3.1 schemas already are JSON Schema; 3.0 ones differ in a few
 * keywords that a JSON Schema validator (and the model reading the schema) would misread, so these are translated:
 * `nullable` becomes a `"null"` type, boolean `exclusiveMinimum`/`exclusiveMaximum` become numbers, `example`
 * becomes `examples`, and keywords that only describe serialization (`xml`, `discriminator`, `externalDocs`) go.
 * Read-only properties are dropped: a server sets them, so a caller must not be asked for them.
 */
import type { JsonSchema } from "../catalog/tool.js";

const SERIALIZATION_ONLY = ["xml", "discriminator", "externalDocs"];

/** Keywords whose value must be a number; published specs sometimes write it as a string (`"maximum": "50"`). */
const NUMERIC_KEYWORDS = [
  "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf",
  "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties",
];
const NUMBER_TEXT = /^\s*-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;
/** Keywords that may be booleans; published specs sometimes write one as a string (`"additionalProperties": "true"`). */
const BOOLEAN_KEYWORDS = ["additionalProperties", "uniqueItems", "nullable", "readOnly", "writeOnly", "deprecated", "exclusiveMaximum", "exclusiveMinimum"];

/** How a schema is translated: the document's OpenAPI version, and where each repair of a slip is told. */
export interface SchemaContext {
  version: "3.0" | "3.1";
  /** Called once per repair, with what was found and what it was read as. */
  repaired(note: string): void;
}

/** Translates one schema object whose children are already translated. Returns a new object. */
export function toJsonSchema(node: Record<string, unknown>, context?: SchemaContext): JsonSchema {
  const out: Record<string, unknown> = { ...node };
  for (const key of SERIALIZATION_ONLY) delete out[key];
  if (context) repairSlips(out, context);
  if (out.nullable === true) addNullType(out);
  delete out.nullable;
  for (const [flag, limit] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
    if (typeof out[flag] !== "boolean") continue;
    if (out[flag] === true && typeof out[limit] === "number") {
      out[flag] = out[limit];
      delete out[limit];
    } else delete out[flag];
  }
  if (Object.hasOwn(out, "example")) {
    if (!Array.isArray(out.examples)) out.examples = [out.example];
    delete out.example;
  }
  dropReadOnly(out);
  return out;
}

/**
 * Repairs the slips of published specs that would make the schema invalid, each told to `context.repaired`:
 * booleans and numbers written as strings, `nullable` in a 3.1 document, a list of types in a 3.0 one.
 */
function repairSlips(out: Record<string, unknown>, context: SchemaContext): void {
  for (const key of BOOLEAN_KEYWORDS) {
    const value = out[key];
    if (typeof value !== "string" || !/^\s*(true|false)\s*$/i.test(value)) continue;
    out[key] = value.trim().toLowerCase() === "true";
    context.repaired(`"${key}": ${JSON.stringify(value)} is a string: read as ${out[key]}`);
  }
  for (const key of NUMERIC_KEYWORDS) {
    const value = out[key];
    if (typeof value !== "string") continue;
    if (NUMBER_TEXT.test(value)) {
      out[key] = Number(value);
      context.repaired(`"${key}": ${JSON.stringify(value)} is a string: read as the number ${out[key]}`);
    } else {
      delete out[key];
      context.repaired(`"${key}": ${JSON.stringify(value)} is not a number: left out`);
    }
  }
  if (context.version === "3.1" && Object.hasOwn(out, "nullable")) {
    context.repaired(`"nullable" is OpenAPI 3.0, not 3.1: ${out.nullable === true ? "read as a \"null\" type" : "left out"}`);
  }
  if (context.version === "3.0" && Array.isArray(out.type)) {
    context.repaired(`"type": ${JSON.stringify(out.type)} is a list, which OpenAPI 3.0 does not allow: kept as JSON Schema reads it`);
  }
}

function addNullType(schema: Record<string, unknown>): void {
  if (typeof schema.type === "string") schema.type = [schema.type, "null"];
  else if (Array.isArray(schema.type) && !schema.type.includes("null")) schema.type = [...schema.type, "null"];
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
}

function dropReadOnly(schema: Record<string, unknown>): void {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (typeof properties !== "object" || properties === null) return;
  const readOnly = Object.keys(properties).filter((name) => properties[name]?.readOnly === true);
  if (!readOnly.length) return;
  schema.properties = Object.fromEntries(Object.entries(properties).filter(([name]) => !readOnly.includes(name)));
  if (Array.isArray(schema.required)) schema.required = schema.required.filter((name) => !readOnly.includes(name as string));
}
