/**
 * One OpenAPI operation → one tool plus the plan to call it. The input schema is flat, as models fill it best: path,
 * query, header and cookie parameters are properties, and so are the fields of a JSON object body; a body that is not
 * a plain object (an array, a `oneOf`, a field name clashing with a parameter) is one `body` property instead. The
 * plan remembers where each property goes on the wire, so the executor (call.ts) needs nothing else.
 */
import type { JsonSchema } from "../catalog/tool.js";
import { argumentKey } from "./names.js";
import { derefObject, MAX_REF_DEPTH, SchemaInliner } from "./refs.js";
import { plainText } from "./text.js";

export type ParameterLocation = "path" | "query" | "header" | "cookie";

/** Where one input property goes in the request. */
export interface Placement {
  /** The property name in the tool's input. */
  arg: string;
  /** `body` for a field of a flattened object body. */
  in: ParameterLocation | "body";
  /** The name on the wire (parameter or body field name). */
  name: string;
  /** OpenAPI serialization (defaults per location: form/simple, explode for form). */
  style?: string;
  explode?: boolean;
  /** The parameter is described by `content` (e.g. JSON): its value is sent as JSON text. */
  json?: boolean;
}

/** How the request body is sent. */
export interface BodyPlan {
  mediaType: string;
  /** `fields`: the body is an object built from the `body` placements; `whole`: one property holds the body. */
  mode: "fields" | "whole";
  /** The property holding the whole body (mode `whole`). */
  arg?: string;
  required: boolean;
}

/** Everything needed to call an operation. */
export interface OperationPlan {
  method: string;
  path: string;
  operationId?: string;
  placements: Placement[];
  body?: BodyPlan;
  /**
   * Security requirements in force (alternatives; each maps scheme names to scopes). `[]`: the operation is public;
   * undefined: the document says nothing, so whatever auth is configured is sent.
   */
  security?: Record<string, string[]>[];
  /** The operation's server URL when it overrides the document's. */
  server?: string;
}

/** The parts of a tool built from an operation, before it is named. */
export interface OperationTool {
  inputSchema: JsonSchema;
  plan: OperationPlan;
  warnings: string[];
}

/** Media types sent as JSON, in order of preference. */
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;
/** Header parameters that OpenAPI says are ignored (the client sets them). */
const RESERVED_HEADERS = new Set(["accept", "content-type", "authorization"]);
const LOCATIONS: readonly string[] = ["path", "query", "header", "cookie"];

/** Thrown inside this module for an operation that cannot become a tool; the catalog reports it as skipped. */
export class SkipOperation extends Error {}

interface ParameterObject {
  name: string;
  in: string;
  description?: string;
  required?: boolean;
  deprecated?: boolean;
  schema?: unknown;
  content?: Record<string, { schema?: unknown }>;
  style?: string;
  explode?: boolean;
  example?: unknown;
}

/** Builds the input schema and call plan of one operation. Throws `SkipOperation` with the reason when it cannot. */
export function buildOperation(
  doc: Record<string, unknown>,
  source: string,
  method: string,
  path: string,
  pathItem: Record<string, unknown>,
  operation: Record<string, unknown>,
): OperationTool {
  const inliner = new SchemaInliner(doc, source);
  const warnings: string[] = [];
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const placements: Placement[] = [];
  const taken = (key: string) => Object.hasOwn(properties, key);

  for (const parameter of mergedParameters(doc, source, pathItem, operation)) {
    if (!LOCATIONS.includes(parameter.in)) {
      warnings.push(`parameter ${JSON.stringify(parameter.name)} is in ${JSON.stringify(parameter.in)}, which OpenAPI 3 does not have: left out`);
      continue;
    }
    if (parameter.in === "header" && RESERVED_HEADERS.has(parameter.name.toLowerCase())) continue;
    const location = parameter.in as ParameterLocation;
    let arg = argumentKey(parameter.name);
    if (taken(arg)) arg = argumentKey(`${location}_${parameter.name}`);
    if (taken(arg)) throw new SkipOperation(`two parameters both named ${JSON.stringify(parameter.name)} in ${location}`);
    const content = parameter.content ? Object.values(parameter.content)[0] : undefined;
    properties[arg] = parameterSchema(inliner, parameter, content?.schema);
    if (parameter.required || location === "path") required.push(arg);
    placements.push({ arg, in: location, name: parameter.name, style: parameter.style, explode: parameter.explode, json: content ? true : undefined });
  }
  for (const [name] of path.matchAll(/\{([^}]+)\}/g)) {
    const wire = name.slice(1, -1);
    if (!placements.some((p) => p.in === "path" && p.name === wire)) throw new SkipOperation(`path parameter {${wire}} is not declared in "parameters"`);
  }

  const body = requestBody(doc, source, inliner, operation, warnings);
  let bodyPlan: BodyPlan | undefined;
  if (body) {
    const fields = flattenable(body.schema, (key) => taken(key));
    if (fields) {
      for (const [field, schema] of Object.entries(fields.properties)) {
        properties[field] = schema;
        placements.push({ arg: field, in: "body", name: field });
      }
      if (body.required) required.push(...fields.required);
      bodyPlan = { mediaType: body.mediaType, mode: "fields", required: body.required };
    } else {
      const arg = taken("body") ? "request_body" : "body";
      const description = plainText(body.description);
      properties[arg] = description && typeof body.schema.description !== "string" ? { ...body.schema, description } : body.schema;
      if (body.required) required.push(arg);
      bodyPlan = { mediaType: body.mediaType, mode: "whole", arg, required: body.required };
    }
  }

  if (inliner.cut) warnings.push(`${inliner.cut} schema part${inliner.cut === 1 ? "" : "s"} nested more than ${MAX_REF_DEPTH} $refs deep given as plain objects`);
  const inputSchema: JsonSchema = { type: "object", properties };
  if (required.length) inputSchema.required = [...new Set(required)];
  if (Object.keys(inliner.defs).length) inputSchema.$defs = inliner.defs;
  const security = (operation.security ?? doc.security) as Record<string, string[]>[] | undefined;
  const server = firstServerUrl(operation.servers) ?? firstServerUrl(pathItem.servers);
  const operationId = typeof operation.operationId === "string" ? operation.operationId : undefined;
  return { inputSchema, warnings, plan: { method: method.toUpperCase(), path, operationId, placements, body: bodyPlan, security, server } };
}

/** Path-level parameters overridden by operation-level ones with the same name and location. */
function mergedParameters(doc: unknown, source: string, pathItem: Record<string, unknown>, operation: Record<string, unknown>): ParameterObject[] {
  const byKey = new Map<string, ParameterObject>();
  for (const list of [pathItem.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const parameter = derefObject<ParameterObject>(doc, raw, source);
      if (typeof parameter?.name !== "string" || typeof parameter.in !== "string") throw new SkipOperation("a parameter has no name or no \"in\"");
      byKey.set(`${parameter.in}:${parameter.name}`, parameter);
    }
  }
  return [...byKey.values()];
}

/** The parameter's schema with its own description, deprecation and example folded in. */
function parameterSchema(inliner: SchemaInliner, parameter: ParameterObject, contentSchema: unknown): JsonSchema {
  const schema = inliner.inline(parameter.schema ?? contentSchema ?? { type: "string" });
  const out: JsonSchema = { ...schema };
  const description = plainText(parameter.description);
  if (description) out.description = description;
  if (parameter.deprecated) out.deprecated = true;
  if (parameter.example !== undefined && !Array.isArray(out.examples)) out.examples = [parameter.example];
  return out;
}

interface BodyChoice {
  mediaType: string;
  schema: JsonSchema;
  required: boolean;
  description?: unknown;
}

/** The request body as JSON (preferred) or a form; a required body of another type skips the operation. */
function requestBody(doc: unknown, source: string, inliner: SchemaInliner, operation: Record<string, unknown>, warnings: string[]): BodyChoice | undefined {
  if (operation.requestBody === undefined) return undefined;
  const body = derefObject<{ content?: Record<string, { schema?: unknown }>; required?: boolean; description?: unknown }>(doc, operation.requestBody, source);
  const content = body?.content ?? {};
  const types = Object.keys(content);
  const mediaType = types.find((t) => JSON_TYPE.test(t)) ?? types.find((t) => FORM_TYPE.test(t));
  if (!mediaType) {
    const what = types.length ? `only ${types.join(", ")}` : "no media type";
    if (body?.required) throw new SkipOperation(`its request body takes ${what}; toolsearch sends JSON or form bodies`);
    warnings.push(`its optional request body (${what}) is left out; toolsearch sends JSON or form bodies`);
    return undefined;
  }
  const schema = inliner.inline(content[mediaType]?.schema ?? {});
  return { mediaType, schema, required: body.required === true, description: body.description };
}

/** An object body whose fields can sit beside the parameters, or undefined when it must stay one property. */
function flattenable(given: JsonSchema, taken: (key: string) => boolean): { properties: Record<string, JsonSchema>; required: string[] } | undefined {
  const schema = mergeAllOf(given);
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (typeof properties !== "object" || properties === null || Object.keys(properties).length === 0) return undefined;
  const type = schema.type;
  if (type !== undefined && type !== "object") return undefined;
  if (["oneOf", "anyOf", "allOf", "not", "if", "patternProperties", "$ref"].some((k) => Object.hasOwn(schema, k))) return undefined;
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return undefined;
  const names = Object.keys(properties);
  if (names.some((n) => taken(n) || argumentKey(n) !== n)) return undefined;
  const required = Array.isArray(schema.required) ? (schema.required as string[]).filter((n) => names.includes(n)) : [];
  return { properties, required };
}

/**
 * `allOf` of plain object schemas (the usual way APIs compose a base and an extension) as one object schema, so its
 * fields can be flattened like any other body's. Anything else is returned as it is.
 */
function mergeAllOf(schema: JsonSchema): JsonSchema {
  const parts = schema.allOf;
  if (!Array.isArray(parts) || parts.length === 0) return schema;
  const plain = (part: unknown): part is JsonSchema => {
    if (typeof part !== "object" || part === null) return false;
    const { type, additionalProperties } = part as JsonSchema;
    if (type !== undefined && type !== "object") return false;
    if (additionalProperties !== undefined && additionalProperties !== false) return false;
    return ["oneOf", "anyOf", "not", "allOf", "$ref", "patternProperties"].every((k) => !Object.hasOwn(part, k));
  };
  if (!parts.every(plain)) return schema;
  const { allOf: _parts, ...rest } = schema;
  const merged: JsonSchema = { ...rest, type: "object", properties: { ...(rest.properties as object) }, required: [...((rest.required as string[]) ?? [])] };
  for (const part of parts) {
    for (const [name, property] of Object.entries((part.properties as Record<string, JsonSchema>) ?? {})) {
      if (Object.hasOwn(merged.properties as object, name)) return schema; // the same field twice: keep allOf's meaning
      (merged.properties as Record<string, JsonSchema>)[name] = property;
    }
    (merged.required as string[]).push(...((part.required as string[]) ?? []));
    if (typeof part.description === "string" && typeof merged.description !== "string") merged.description = part.description;
  }
  return merged;
}

/** The first server's URL with its variables at their defaults, or undefined. */
export function firstServerUrl(servers: unknown): string | undefined {
  if (!Array.isArray(servers) || servers.length === 0) return undefined;
  const server = servers[0] as { url?: unknown; variables?: Record<string, { default?: unknown }> };
  if (typeof server?.url !== "string") return undefined;
  return server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const value = server.variables?.[name]?.default;
    return value === undefined ? whole : String(value);
  });
}
