/**
 * OpenAPI schema objects as plain JSON Schema. OpenAPI 3.1 schemas already are JSON Schema; 3.0 ones differ in a few
 * keywords that a JSON Schema validator (and the model reading the schema) would misread, so these are translated:
 * `nullable` becomes a `"null"` type, boolean `exclusiveMinimum`/`exclusiveMaximum` become numbers, `example`
 * becomes `examples`, and keywords that only describe serialization (`xml`, `discriminator`, `externalDocs`) go.
 * Read-only properties are dropped: a server sets them, so a caller must not be asked for them.
 */
import type { JsonSchema } from "../catalog/tool.js";

const SERIALIZATION_ONLY = ["xml", "discriminator", "externalDocs"];

/** Translates one schema object whose children are already translated. Returns a new object. */
export function toJsonSchema(node: Record<string, unknown>): JsonSchema {
  const out: Record<string, unknown> = { ...node };
  for (const key of SERIALIZATION_ONLY) delete out[key];
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
