/**
 * Reading an OpenAPI document: a file (JSON or YAML) or an object, with its external file `$ref`s bundled in (by
 * `@readme/openapi-parser`), Swagger 2.0 converted to OpenAPI 3.0 (by `swagger2openapi`), and every failure turned
 * into a `ToolsearchError` that names the file. Internal `$ref`s are kept: refs.ts resolves them per tool, which is
 * how circular schemas stay finite.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bundle, parse } from "@readme/openapi-parser";
import { parse as parseYaml } from "yaml";
import { convertObj } from "swagger2openapi";
import { ToolsearchError } from "../errors.js";
import { type DetachedExtension, detachExtensionRefs, extensionWarnings } from "./extensions.js";
import { BROKEN_REF, readPointer } from "./refs.js";

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
  /** What reading the document let pass: references to other files that cannot be read, each standing in a marker. */
  warnings: string[];
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
  const warnings: string[] = [];
  const bundled = await bundleOrExplain(typeof spec === "string" ? spec : structuredClone(spec), source, warnings);
  const version = versionOf(bundled, source);
  if (version !== "2.0") return { doc: bundled, source, version, warnings };
  return { doc: await convertSwagger2(bundled, source), source, version: "3.0", convertedFrom: "2.0", warnings };
}

/**
 * Parses the document, drops the vendor extensions that hold references (extensions.ts: they are not schema), and
 * bundles it only when it refers to other files. Internal references are left for refs.ts to follow per operation, so
 * that one broken reference (often in a response nobody imports) costs only the operations that use it, not the whole
 * document.
 */
async function bundleOrExplain(spec: string | object, source: string, warnings: string[]): Promise<Record<string, unknown>> {
  // The http resolver is switched off: a spec must not make an import (or a test) reach the network.
  const options = { resolve: { http: { canRead: false } } } as unknown as Parameters<typeof bundle>[1];
  const api = spec as Parameters<typeof bundle>[0];
  let parsed: unknown;
  try {
    parsed = (await parse(api, options)) as unknown;
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("the document is not an object");
  } catch (error) {
    throw parserError(error, source);
  }
  warnings.push(...extensionWarnings(detachExtensionRefs(parsed)));
  if (!hasExternalRef(parsed)) return parsed as Record<string, unknown>;
  return bundleMarked(spec, parsed as Record<string, unknown>, source, warnings);
}

/**
 * Bundles a parsed document whose references may not all resolve. Published specs carry references to files that are
 * not there or to parts that are missing, where no operation looks (an unused component) or where only some do, so
 * each broken one stands in a marker instead, the operations that reach a marker are skipped, and the rest of the
 * document is bundled as it would have been.
 */
async function bundleMarked(spec: string | object, parsed: Record<string, unknown>, source: string, warnings: string[]): Promise<Record<string, unknown>> {
  const base = typeof spec === "string" ? dirname(resolve(spec)) : undefined;
  const doc = structuredClone(parsed) as Record<string, unknown>;
  const files = new Map<string, unknown>();
  const broken = markBrokenRefs(doc, base, files);
  const detached: DetachedExtension[] = [];
  try {
    // The references left are absolute paths that load; the files they name are read through `markingReader`, so
    // that a broken reference inside one of them becomes a marker too.
    const reader = { resolve: { file: markingReader(files, broken, detached, base ?? "."), http: { canRead: false } } } as unknown as Parameters<typeof bundle>[1];
    return (await bundle(doc as Parameters<typeof bundle>[0], reader)) as unknown as Record<string, unknown>;
  } catch (error) {
    throw parserError(error, source);
  } finally {
    warnings.push(...extensionWarnings(detached));
    for (const { ref, at, reason } of broken) warnings.push(`$ref ${ref} at ${at} cannot be resolved (${reason}): operations that use it are skipped`);
  }
}

/**
 * The bundler's file reader for the second attempt: it serves each file the document refers to without its vendor
 * extensions that hold references (listed in `detached`), and with its own unreadable references (to files missing,
 * or to parts missing in it or in other files) replaced by markers, listed in `broken`. `root` is the document's folder, which the locations in warnings are relative to.
 */
function markingReader(files: Map<string, unknown>, broken: BrokenRef[], detached: DetachedExtension[], root: string) {
  return {
    order: 1,
    canRead: (file: { url: string }) => !/^https?:/i.test(file.url),
    read: async (file: { url: string }): Promise<string> => {
      const path = file.url.startsWith("file:") ? fileURLToPath(file.url) : safeDecodeUri(file.url);
      const reason = unreadable(path, "", files);
      if (reason) throw new Error(`Error opening file ${path}: ${reason}`);
      const content = structuredClone(files.get(path));
      const where = relative(root, path);
      detached.push(...detachExtensionRefs(content).map(({ name, at }) => ({ name, at: `${where}${at}` })));
      broken.push(...markBrokenRefs(content, dirname(path), files, where));
      return JSON.stringify(content);
    },
  };
}

function safeDecodeUri(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

/** A reference to another file that cannot be read, where it was found (a JSON pointer) and why. */
interface BrokenRef {
  ref: string;
  at: string;
  reason: string;
}

/**
 * Replaces each reference to another file that cannot be read by a marker (see `BROKEN_REF`), and makes the others
 * absolute, so that the document bundles as an object. `base` is the document's folder (none for an object: then no
 * file reference can be read). For a file the document refers to (`file`, its path as warnings name it), references
 * inside it to parts it lacks are marked too: the document's own are left to refs.ts, per operation.
 */
function markBrokenRefs(doc: unknown, base: string | undefined, files: Map<string, unknown>, file?: string): BrokenRef[] {
  const broken: BrokenRef[] = [];
  // Pointers are read in the document as written, not as it is being marked.
  const original = structuredClone(doc);
  const visit = (node: unknown, at: string): void => {
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      const where = `${at}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      const ref = (value as { $ref?: unknown } | null)?.$ref;
      const internal = typeof ref === "string" && ref.startsWith("#");
      if (typeof ref !== "string") {
        visit(value, where);
        continue;
      }
      const reason = internal ? missingPart(original, ref, file === undefined ? "the document" : "that file") : fileRefProblem(ref, base, files, (path, pointer) => ((value as { $ref: string }).$ref = `${path}#${pointer}`));
      if (reason) {
        broken.push({ ref, at: `${file ?? ""}${where}`, reason });
        (node as Record<string, unknown>)[key] = { [BROKEN_REF]: { ref, reason: file === undefined ? reason : `${reason}, in ${file}` } };
      } else if (internal) visit(value, where);
    }
  };
  visit(doc, "#");
  return broken;
}

/**
 * Why a reference to a part of the same document or file cannot be read, or undefined when it can or when that is not
 * known yet: a pointer that runs into a `$ref` on its way (`#/components/x/A` where `x` is `{"$ref": "other.yaml"}`)
 * is left to the bundler, which follows it.
 */
function missingPart(content: unknown, ref: string, where: string): string | undefined {
  if (!ref.startsWith("#")) return undefined;
  const parts = ref.slice(1).split("/").slice(1).map((p) => safeDecodeUri(p).replace(/~1/g, "/").replace(/~0/g, "~"));
  let node: unknown = content;
  for (const part of parts) {
    if (typeof node !== "object" || node === null) return `nothing at ${ref} in ${where}`;
    if (!Object.hasOwn(node, part)) return typeof (node as { $ref?: unknown }).$ref === "string" ? undefined : `nothing at ${ref} in ${where}`;
    node = (node as Record<string, unknown>)[part];
  }
  return undefined;
}

/** Why a reference to another file cannot be read, or undefined after `readable` was told its absolute path. */
function fileRefProblem(ref: string, base: string | undefined, files: Map<string, unknown>, readable: (path: string, pointer: string) => void): string | undefined {
  if (base === undefined) return "a document given as an object cannot refer to files";
  const [file, pointer = ""] = ref.split("#", 2);
  const path = resolve(base, safeDecodeUri(file));
  const reason = unreadable(path, pointer, files);
  if (!reason) readable(path, pointer);
  return reason;
}

/** Why `pointer` in the file at `path` cannot be read, or undefined when it can. Files are read once. */
function unreadable(path: string, pointer: string, files: Map<string, unknown>): string | undefined {
  if (!files.has(path)) {
    try {
      files.set(path, parseYaml(readFileSync(path, "utf8")));
    } catch (error) {
      files.set(path, error instanceof Error && "code" in error && error.code === "ENOENT" ? new Error("no such file") : new Error("not readable as JSON or YAML"));
    }
  }
  const content = files.get(path);
  if (content instanceof Error) return content.message;
  return pointer && readPointer(content, `#${pointer}`) === undefined ? `nothing at #${pointer} in that file` : undefined;
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
