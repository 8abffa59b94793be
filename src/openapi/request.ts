/**
 * A tool call's input → the HTTP request its operation describes: path parameters filled in, query, header and cookie
 * parameters serialized by their OpenAPI `style`, the body as JSON, a form, multipart form data, text or bytes, and
 * the credentials placed.
 */
import { ToolsearchError } from "../errors.js";
import type { AuthPlacement } from "./auth.js";
import type { BodyPlan, OperationPlan, Placement } from "./operations.js";

/** A request ready for `fetch`. */
export interface HttpRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** Text (JSON, form, text types), bytes (binary types) or multipart form data (fetch writes its boundary). */
  body?: string | Uint8Array<ArrayBuffer> | FormData;
}

/** Builds the request for one call. `serverUrl` is absolute (the configured base URL or the document's server). */
export function buildRequest(plan: OperationPlan, input: Record<string, unknown>, serverUrl: string, auth: AuthPlacement): HttpRequest {
  let path = plan.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: "application/json, */*;q=0.5" };
  const cookies: [string, string][] = [];
  const fields: Record<string, unknown> = {};
  for (const placement of plan.placements) {
    const value = input[placement.arg];
    if (value === undefined) continue;
    switch (placement.in) {
      case "path":
        path = path.split(`{${placement.name}}`).join(pathValue(placement, value));
        break;
      case "query":
        for (const [key, text] of queryPairs(placement, value)) query.append(key, text);
        break;
      case "header":
        headers[placement.name] = headerSafe(placement, simpleValue(placement, value));
        break;
      case "cookie":
        cookies.push([placement.name, headerSafe(placement, simpleValue(placement, value))]);
        break;
      case "body":
        fields[placement.name] = value;
        break;
    }
  }
  for (const [key, text] of auth.query) query.append(key, text);
  Object.assign(headers, auth.headers);
  cookies.push(...auth.cookies);
  if (cookies.length) headers.cookie = cookies.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; ");
  const url = new URL(joinUrl(serverUrl, path));
  for (const [key, text] of query) url.searchParams.append(key, text);
  const body = bodyOf(plan, input, fields);
  // fetch sets a multipart content type itself, with the boundary it chose.
  if (body !== undefined && !(body instanceof FormData)) headers["content-type"] = plan.body!.mediaType;
  return { url: url.toString(), method: plan.method, headers, body };
}

function joinUrl(server: string, path: string): string {
  return `${server.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

function bodyOf(plan: OperationPlan, input: Record<string, unknown>, fields: Record<string, unknown>): HttpRequest["body"] {
  if (!plan.body) return undefined;
  const value = plan.body.mode === "whole" ? input[plan.body.arg!] : Object.keys(fields).length ? fields : undefined;
  if (value === undefined) return plan.body.required && plan.body.mode === "fields" ? encode(plan.body, {}) : undefined;
  return encode(plan.body, value);
}

function encode(body: BodyPlan, value: unknown): HttpRequest["body"] {
  const arg = body.arg ?? "the body";
  switch (body.encoding) {
    case "json":
      return JSON.stringify(value);
    case "text":
      if (typeof value !== "string") throw new ToolsearchError("invalid_arguments", `${arg} must be a string: it is sent as ${body.mediaType} text`);
      return value;
    case "binary":
      return fromBase64(value, arg);
    case "form": {
      const form = new URLSearchParams();
      for (const [key, item] of fieldsOf(body, value)) for (const one of listOf(item)) form.append(key, partText(one));
      return form.toString();
    }
    case "multipart": {
      const form = new FormData();
      for (const [key, item] of fieldsOf(body, value)) {
        const type = body.files?.[key];
        for (const one of listOf(item)) {
          if (type === undefined) form.append(key, partText(one));
          else form.append(key, new Blob([fromBase64(one, key)], { type }), key);
        }
      }
      return form;
    }
  }
}

function fieldsOf(body: BodyPlan, value: unknown): [string, unknown][] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ToolsearchError("invalid_arguments", `${body.arg ?? "the body"} must be an object of fields: it is sent as ${body.mediaType}`);
  }
  return Object.entries(value);
}

const listOf = (item: unknown): unknown[] => (Array.isArray(item) ? item : [item]);
const partText = (one: unknown): string => (typeof one === "object" && one !== null ? JSON.stringify(one) : String(one));

/** Standard or URL-safe base64 (whitespace ignored) → bytes; anything else is refused rather than sent garbled. */
function fromBase64(value: unknown, arg: string): Uint8Array<ArrayBuffer> {
  const text = typeof value === "string" ? value.replace(/\s+/g, "") : undefined;
  if (text === undefined || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(text) || text.replace(/=+$/, "").length % 4 === 1) {
    throw new ToolsearchError("invalid_arguments", `${arg} must be base64 text (the bytes to send), e.g. "aGVsbG8="`);
  }
  return Uint8Array.from(Buffer.from(text, text.includes("-") || text.includes("_") ? "base64url" : "base64"));
}

/** A header value may not hold line breaks (they would start another header) or NUL. */
function headerSafe(placement: Placement, text: string): string {
  if (/[\r\n\0]/.test(text)) throw new ToolsearchError("invalid_arguments", `${placement.arg} must not contain line breaks: it is sent as the ${placement.in} ${placement.name}`);
  return text;
}

function scalar(value: unknown): string {
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}

/** `simple` style (headers, cookies, default for path): arrays comma-joined, objects as k,v pairs or k=v when exploded. */
function simpleValue(placement: Placement, value: unknown): string {
  if (placement.json) return JSON.stringify(value);
  if (Array.isArray(value)) return value.map(scalar).join(",");
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    return placement.explode ? entries.map(([k, v]) => `${k}=${scalar(v)}`).join(",") : entries.flat().map(scalar).join(",");
  }
  return String(value);
}

function pathValue(placement: Placement, value: unknown): string {
  const text = simpleValue(placement, value);
  // URL parsers resolve "." and ".." segments (encoded or not), which would send the call to another path.
  if (text === "." || text === ".." || text === "") throw new ToolsearchError("invalid_arguments", `${placement.arg} must not be empty, "." or "..": it fills a path segment`);
  const encoded = encodeURIComponent(text).replace(/%2C/gi, ",");
  if (placement.style === "label") return `.${encoded}`;
  if (placement.style === "matrix") return `;${placement.name}=${encoded}`;
  return encoded;
}

/** Query pairs by style: `form` (default, exploded), `spaceDelimited`, `pipeDelimited`, `deepObject`. */
function queryPairs(placement: Placement, value: unknown): [string, string][] {
  const name = placement.name;
  if (placement.json) return [[name, JSON.stringify(value)]];
  const style = placement.style ?? "form";
  const explode = placement.explode ?? style === "form";
  if (Array.isArray(value)) {
    if (style === "form" && explode) return value.map((v) => [name, scalar(v)]);
    const separator = style === "spaceDelimited" ? " " : style === "pipeDelimited" ? "|" : ",";
    return [[name, value.map(scalar).join(separator)]];
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    if (style === "deepObject") return entries.map(([k, v]) => [`${name}[${k}]`, scalar(v)]);
    if (explode) return entries.map(([k, v]) => [k, scalar(v)]);
    return [[name, entries.flat().map(scalar).join(",")]];
  }
  return [[name, String(value)]];
}
