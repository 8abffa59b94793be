/**
 * Reading an OpenAPI document: a file (JSON or YAML) or an object, with its external file `$ref`s bundled in (by
 * `@readme/openapi-parser`), Swagger 2.0 converted to OpenAPI 3.0 (by `swagger2openapi`), and every failure turned
 * into a `ToolsearchError` that names the file. Internal `$ref`s are kept: refs.ts resolves them per tool, which is
 * how circular schemas stay finite.
 */
import { existsSync } from "node:fs";
import { bundle, parse } from "@readme/openapi-parser";
import { convertObj } from "swagger2openapi";
import { ToolsearchError } from "../errors.js";

/** A loaded document: OpenAPI 3.x with only internal `$ref`s. */
export interface OpenApiDocument {
  /** The document (3.0 or 3.1 shape). */
  doc: Record<string, unknown>;
  /** The file it came from, or "spec" for an object. */
  source: string;
  /** `3.0` or `3.1` (a Swagger 2.0 file reads as `3.0` after conversion). */
  version: "3.0" | "3.1";
  /** Set when the file was Swagger 2.0 and was converted. */
  convertedFrom?: "2.0";
}

/**
 * Loads an OpenAPI 3.0/3.1 or Swagger 2.0 document from a file path or an already parsed object.
 * External `$ref`s to local files are bundled; `$ref`s to URLs are refused (nothing is downloaded).
 *
 * @example
 * ```ts
 * const { doc, version } = await loadOpenApi("clinic.yaml");
 * ```
 */
export async function loadOpenApi(spec: string | object, label?: string): Promise<OpenApiDocument> {
  const source = label ?? (typeof spec === "string" ? spec : "spec");
  if (typeof spec === "string") {
    if (/^https?:\/\//i.test(spec)) throw new ToolsearchError("openapi_invalid", `${spec}: give a local file; toolsearch does not download specs (save it first, e.g. with curl -o)`);
    if (!existsSync(spec)) throw new ToolsearchError("file_unreadable", `${spec}: cannot read file (no such file)`);
  } else if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    throw new ToolsearchError("openapi_invalid", `${source}: an OpenAPI document must be an object`);
  }
  const bundled = await bundleOrExplain(typeof spec === "string" ? spec : structuredClone(spec), source);
  const version = versionOf(bundled, source);
  if (version !== "2.0") return { doc: bundled, source, version };
  return { doc: await convertSwagger2(bundled, source), source, version: "3.0", convertedFrom: "2.0" };
}

/**
 * Parses the document, and bundles it only when it refers to other files. Internal references are left for refs.ts to
 * follow per operation, so that one broken reference (often in a response nobody imports) costs only the operations
 * that use it, not the whole document.
 */
async function bundleOrExplain(spec: string | object, source: string): Promise<Record<string, unknown>> {
  try {
    // The http resolver is switched off: a spec must not make an import (or a test) reach the network.
    const options = { resolve: { http: { canRead: false } } } as unknown as Parameters<typeof bundle>[1];
    const api = spec as Parameters<typeof bundle>[0];
    const parsed = (await parse(api, options)) as unknown;
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("the document is not an object");
    if (!hasExternalRef(parsed)) return parsed as Record<string, unknown>;
    return (await bundle(api, options)) as unknown as Record<string, unknown>;
  } catch (error) {
    throw parserError(error, source);
  }
}

function hasExternalRef(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasExternalRef);
  if (typeof node !== "object" || node === null) return false;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === "string" && !ref.startsWith("#")) return true;
  return Object.values(node).some(hasExternalRef);
}

/** Words the parser's errors in our terms: syntax errors are `file_parse`, reference errors `openapi_invalid`. */
function parserError(error: unknown, source: string): ToolsearchError {
  const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim();
  const name = error instanceof Error ? error.name : "";
  if (/ResolverError|MissingPointerError/.test(name) || /^(Unable to resolve|Error resolving|Error opening file)/i.test(reason)) {
    return new ToolsearchError("openapi_invalid", `${source}: a $ref cannot be resolved (${reason}); only references inside the file or to local files are followed`);
  }
  if (/ParserError|SyntaxError|YAMLException/.test(name) || /^(Error parsing|Unexpected token)/i.test(reason)) {
    return new ToolsearchError("file_parse", `${source}: not valid JSON or YAML (${reason})`);
  }
  return new ToolsearchError("openapi_invalid", `${source}: cannot read the OpenAPI document (${reason})`);
}

function versionOf(doc: Record<string, unknown>, source: string): "2.0" | "3.0" | "3.1" {
  const { openapi, swagger } = doc;
  if (typeof openapi === "string" && /^3\.0(\.\d+)?$/.test(openapi)) return "3.0";
  if (typeof openapi === "string" && /^3\.1(\.\d+)?$/.test(openapi)) return "3.1";
  if (String(swagger) === "2.0") return "2.0";
  const found = openapi !== undefined ? `"openapi": ${JSON.stringify(openapi)}` : swagger !== undefined ? `"swagger": ${JSON.stringify(swagger)}` : "neither an \"openapi\" nor a \"swagger\" field";
  throw new ToolsearchError("openapi_invalid", `${source}: not a supported OpenAPI document (found ${found}; toolsearch reads OpenAPI 3.0, 3.1 and Swagger 2.0)`);
}

async function convertSwagger2(doc: Record<string, unknown>, source: string): Promise<Record<string, unknown>> {
  try {
    return await convertObj(doc, { patch: true, warnOnly: true, direct: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolsearchError("openapi_invalid", `${source}: Swagger 2.0 document could not be converted to OpenAPI 3 (${reason})`);
  }
}
