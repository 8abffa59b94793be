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

/**
 * How a body is encoded: `json`; `form` (`application/x-www-form-urlencoded`); `multipart` (`multipart/form-data`,
 * file fields given as base64); `text` (`text/*`, XML: the string as it is); `binary` (any other type: the input is
 * base64 and the bytes are sent).
 */
export type BodyEncoding = "json" | "form" | "multipart" | "text" | "binary";

/** How the request body is sent. */
export interface BodyPlan {
  mediaType: string;
  encoding: BodyEncoding;
  /** `fields`: the body is an object built from the `body` placements; `whole`: one property holds the body. */
  mode: "fields" | "whole";
  /** The property holding the whole body (mode `whole`). */
  arg?: string;
  required: boolean;
  /** Multipart fields that are files (base64 in the input), with the content type of their part. */
  files?: Record<string, string>;
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

/** Body media types by encoding, in order of preference (JSON first: models write it best); anything else is binary. */
const BODY_TYPES: [RegExp, BodyEncoding][] = [
  [/^application\/(?:[\w.+-]+\+)?json\b/i, "json"],
  [/^application\/x-www-form-urlencoded\b/i, "form"],
  [/^multipart\/form-data\b/i, "multipart"],
  [/^(?:text\/[\w.+-]+|application\/(?:[\w.+-]+\+)?xml)\b/i, "text"],
];
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
  servers: ServerChoice = {},
): OperationTool {
  const inliner = new SchemaInliner(doc, source);
  const warnings: string[] = [];
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const placements: Placement[] = [];
  const taken = (key: string) => Object.hasOwn(properties, key);

  for (const parameter of mergedParameters(doc, source, pathItem, operation, warnings)) {
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
    const { mediaType, encoding } = body;
    const fields = encoding === "json" || encoding === "form" || encoding === "multipart" ? flattenable(body.schema, (key) => taken(key)) : undefined;
    const parts = encoding === "multipart" ? fileParts(fields?.properties ?? (body.schema.properties as Record<string, JsonSchema> | undefined) ?? {}, body.partTypes) : undefined;
    const files = parts && Object.keys(parts.files).length ? { files: parts.files } : {};
    if (fields) {
      for (const [field, schema] of Object.entries(parts?.properties ?? fields.properties)) {
        properties[field] = schema;
        placements.push({ arg: field, in: "body", name: field });
      }
      if (body.required) required.push(...fields.required);
      bodyPlan = { mediaType, encoding, mode: "fields", required: body.required, ...files };
    } else {
      const arg = taken("body") ? "request_body" : "body";
      const description = plainText(body.description);
      const schema = encoding === "binary" ? base64Schema(body.schema, "the request body")
        : encoding === "text" ? { type: "string", description: `The body, as ${mediaType} text.`, ...textOnly(body.schema) }
        : parts ? { ...body.schema, properties: parts.properties } : body.schema;
      properties[arg] = description && typeof schema.description !== "string" ? { ...schema, description } : schema;
      if (body.required) required.push(arg);
      bodyPlan = { mediaType, encoding, mode: "whole", arg, required: body.required, ...files };
    }
  }

  warnings.push(...[...inliner.repairs].map((note) => `repaired: ${note}`));
  if (inliner.cut) warnings.push(`${inliner.cut} schema part${inliner.cut === 1 ? "" : "s"} nested more than ${MAX_REF_DEPTH} $refs deep given as plain objects`);
  const inputSchema: JsonSchema = { type: "object", properties };
  if (required.length) inputSchema.required = [...new Set(required)];
  if (Object.keys(inliner.defs).length) inputSchema.$defs = inliner.defs;
  const security = (operation.security ?? doc.security) as Record<string, string[]>[] | undefined;
  const server = chooseServer(operation.servers, servers) ?? chooseServer(pathItem.servers, servers);
  const operationId = typeof operation.operationId === "string" ? operation.operationId : undefined;
  return { inputSchema, warnings, plan: { method: method.toUpperCase(), path, operationId, placements, body: bodyPlan, security, server } };
}

/** Path-level parameters overridden by operation-level ones with the same name and location. */
function mergedParameters(doc: unknown, source: string, pathItem: Record<string, unknown>, operation: Record<string, unknown>, warnings: string[]): ParameterObject[] {
  const byKey = new Map<string, ParameterObject>();
  for (const list of [pathItem.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue;
    const listed = new Set<string>();
    for (const raw of list) {
      const parameter = repairFlags(derefObject<ParameterObject>(doc, raw, source), PARAMETER_FLAGS, warnings);
      if (typeof parameter?.name !== "string" || typeof parameter.in !== "string") throw new SkipOperation("a parameter has no name or no \"in\"");
      const key = `${parameter.in}:${parameter.name}`;
      // OpenAPI forbids the same parameter twice in one list; the last one is what such a spec's own tools tend to use.
      if (listed.has(key)) warnings.push(`repaired: parameter ${JSON.stringify(parameter.name)} in ${parameter.in} is listed twice: the last one is kept`);
      listed.add(key);
      byKey.set(key, parameter);
    }
  }
  return [...byKey.values()];
}

const PARAMETER_FLAGS = ["required", "deprecated", "explode", "allowReserved", "allowEmptyValue"];

/**
 * A parameter or request body with its boolean fields as booleans: published specs write `"required": "false"`, a
 * string that reads as true. "true" and "false" become the booleans they spell; any other string is left out. Each
 * repair is told once per operation. Returns a copy (the document is shared by every operation).
 */
function repairFlags<T>(object: T, flags: string[], warnings: string[]): T {
  if (typeof object !== "object" || object === null) return object;
  let out: Record<string, unknown> | undefined;
  for (const flag of flags) {
    const value = (object as Record<string, unknown>)[flag];
    if (typeof value !== "string") continue;
    out ??= { ...(object as Record<string, unknown>) };
    const spelled = value.trim().toLowerCase();
    if (spelled === "true" || spelled === "false") out[flag] = spelled === "true";
    else delete out[flag];
    const note = `repaired: "${flag}": ${JSON.stringify(value)} is a string: ${spelled === "true" || spelled === "false" ? `read as ${spelled}` : "left out"}`;
    if (!warnings.includes(note)) warnings.push(note);
  }
  return (out ?? object) as T;
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
  encoding: BodyEncoding;
  schema: JsonSchema;
  required: boolean;
  description?: unknown;
  /** Content types of multipart parts from the media type's `encoding` object. */
  partTypes: Record<string, string>;
}

interface MediaTypeObject {
  schema?: unknown;
  encoding?: Record<string, { contentType?: unknown }>;
}

/** The request body in the media type toolsearch sends best (JSON, then form, multipart, text, then bytes). */
function requestBody(doc: unknown, source: string, inliner: SchemaInliner, operation: Record<string, unknown>, warnings: string[]): BodyChoice | undefined {
  if (operation.requestBody === undefined) return undefined;
  const body = repairFlags(derefObject<{ content?: Record<string, MediaTypeObject>; required?: boolean; description?: unknown }>(doc, operation.requestBody, source), ["required"], warnings);
  const content = body?.content ?? {};
  const types = Object.keys(content);
  if (types.length === 0) {
    if (body?.required) throw new SkipOperation("its required request body names no media type, so there is no way to know how to send it");
    warnings.push("its optional request body names no media type: left out");
    return undefined;
  }
  let chosen: [string, BodyEncoding] | undefined;
  for (const [pattern, encoding] of BODY_TYPES) {
    const found = types.find((t) => pattern.test(t));
    if (found) {
      chosen = [found, encoding];
      break;
    }
  }
  const [listed, encoding] = chosen ?? [types[0]!, "binary" as const];
  // A wildcard ("*/*", "image/*") says any type will do; the bytes are sent as octet-stream.
  const mediaType = listed.includes("*") ? "application/octet-stream" : listed;
  const media = content[listed] ?? {};
  const schema = inliner.inline(media.schema ?? {});
  const partTypes: Record<string, string> = {};
  for (const [field, part] of Object.entries(media.encoding ?? {})) {
    if (typeof part?.contentType === "string") partTypes[field] = part.contentType.split(",")[0]!.trim();
  }
  return { mediaType, encoding, schema, required: body.required === true, description: body.description, partTypes };
}

/** Multipart fields with the file ones given as base64, and the part type of each file field. */
function fileParts(fields: Record<string, JsonSchema>, partTypes: Record<string, string>): { properties: Record<string, JsonSchema>; files: Record<string, string> } {
  const properties: Record<string, JsonSchema> = {};
  const files: Record<string, string> = {};
  for (const [field, schema] of Object.entries(fields)) {
    const file = typeof schema === "object" && schema !== null && isBinary(schema);
    if (file) files[field] = partTypes[field] ?? "application/octet-stream";
    properties[field] = file ? base64Schema(schema, "the file's content") : schema;
  }
  return { properties, files };
}

/** A schema of bytes: `format: binary` (3.0), or `contentMediaType`/`contentEncoding` without a JSON type (3.1); arrays of them too. */
function isBinary(schema: JsonSchema): boolean {
  if (schema.type === "array" && typeof schema.items === "object" && schema.items !== null) return isBinary(schema.items as JsonSchema);
  if (schema.format === "binary") return true;
  return (typeof schema.contentMediaType === "string" || schema.contentEncoding === "binary") && (schema.type === undefined || schema.type === "string");
}

/** The input schema of bytes given as base64 (a string, or an array of them for several files). */
function base64Schema(schema: JsonSchema, what: string): JsonSchema {
  if (schema.type === "array") return { type: "array", items: base64Schema((schema.items as JsonSchema) ?? {}, what), ...textOnly(schema) };
  const own = typeof schema.description === "string" ? `${schema.description.replace(/[.\s]*$/, "")}. ` : "";
  return { type: "string", contentEncoding: "base64", description: `${own}Base64 of ${what}.` };
}

/** The parts of a schema that still hold for a string: its description and title. */
function textOnly(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  if (typeof schema.description === "string") out.description = schema.description;
  if (typeof schema.title === "string") out.title = schema.title;
  return out;
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

/**
 * Which of a document's `servers` to call: an index into the document's list, or a URL or description to match
 * (case-insensitive); `variables` override the defaults of server variables.
 */
export interface ServerChoice {
  server?: number | string;
  variables?: Record<string, string>;
}

interface ServerObject {
  url?: unknown;
  description?: unknown;
  variables?: Record<string, { default?: unknown; enum?: unknown }>;
}

/**
 * The URL of the chosen server in `servers` (a document's, a path item's or an operation's list), its variables
 * filled from `choice.variables`, else their defaults; undefined when the list is empty. A path or operation list
 * without the chosen entry gives its first (its own variables filled the same way).
 *
 * @example
 * ```ts
 * chooseServer([{ url: "https://{region}.api.example.com", variables: { region: { default: "eu" } } }], { variables: { region: "us" } });
 * // "https://us.api.example.com"
 * ```
 */
export function chooseServer(servers: unknown, choice: ServerChoice = {}): string | undefined {
  if (!Array.isArray(servers) || servers.length === 0) return undefined;
  const list = servers as ServerObject[];
  const wanted = choice.server;
  const matched = typeof wanted === "number" ? list[wanted]
    : typeof wanted === "string" ? list.find((s) => sameText(s?.url, wanted) || sameText(s?.description, wanted))
    : undefined;
  const server = matched ?? list[0]!;
  if (typeof server?.url !== "string") return undefined;
  return server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const value = choice.variables?.[name] ?? server.variables?.[name]?.default;
    return value === undefined ? whole : String(value);
  });
}

/**
 * Checks a server choice against the document's own `servers`: the index or name exists and every variable value is
 * one its `enum` allows. Returns the problem, or undefined when the choice is fine.
 */
export function serverChoiceProblem(servers: unknown, choice: ServerChoice): string | undefined {
  const list = (Array.isArray(servers) ? servers : []) as ServerObject[];
  const names = list.map((s, i) => `${i}: ${String(s?.url)}${typeof s?.description === "string" ? ` (${s.description})` : ""}`).join("; ") || "none";
  const wanted = choice.server;
  if (typeof wanted === "number" && !list[wanted]) return `server ${wanted} does not exist; the document's servers are ${names}`;
  if (typeof wanted === "string" && !list.some((s) => sameText(s?.url, wanted) || sameText(s?.description, wanted))) {
    return `no server has the URL or description ${JSON.stringify(wanted)}; the document's servers are ${names}`;
  }
  const chosen = typeof wanted === "number" ? list[wanted] : typeof wanted === "string" ? list.find((s) => sameText(s?.url, wanted) || sameText(s?.description, wanted)) : list[0];
  for (const [name, value] of Object.entries(choice.variables ?? {})) {
    const variable = chosen?.variables?.[name];
    if (!variable) return `server variable ${JSON.stringify(name)} is not a variable of server ${String(chosen?.url ?? "(none)")}`;
    if (Array.isArray(variable.enum) && !variable.enum.map(String).includes(value)) {
      return `server variable ${name} must be one of ${variable.enum.map((v) => JSON.stringify(String(v))).join(", ")} (got ${JSON.stringify(value)})`;
    }
  }
  return undefined;
}

function sameText(a: unknown, b: string): boolean {
  return typeof a === "string" && a.trim().toLowerCase() === b.trim().toLowerCase();
}
