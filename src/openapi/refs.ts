/**
 * Internal `$ref`s of an OpenAPI document, resolved per tool. A tool's input schema must stand alone (a catalog holds
 * no `components`), so referenced schemas are copied in. A schema that refers to itself, directly or through others
 * (a tree node, a comment thread), would never end: the second time a reference is met on its own path it becomes a
 * `$ref` into the tool schema's own `$defs`, which holds that schema once. An object schema reached through more
 * than `MAX_REF_DEPTH` references is cut to a plain object with a note: in a large API whose schemas all refer to each
 * other, following every reference would copy most of the API into every tool (measured: 150,000 characters per tool
 * on a generated 5,000-operation API; scripts/scale-openapi.ts). The server still validates what it receives.
 */
import { ToolsearchError } from "../errors.js";
import type { JsonSchema } from "../catalog/tool.js";
import { type SchemaContext, toJsonSchema } from "./schema.js";

/** How many references deep an object schema is copied in before it is cut to a plain object. */
export const MAX_REF_DEPTH = 3;

const DATA_KEYS = new Set(["enum", "default", "example", "examples", "const"]);
const MAP_KEYS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/**
 * The key of the marker that stands for a reference to another file that cannot be read (load.ts): the marker's
 * value is `{ ref, reason }`. An operation that reaches one is skipped with that reason.
 */
export const BROKEN_REF = "x-toolsearch-unresolved-ref";

/** Throws `openapi_invalid` naming the reference when `node` is the marker of a reference that cannot be read. */
function refuseBroken(node: unknown, source: string): void {
  const broken = (node as Record<string, { ref?: unknown; reason?: unknown } | undefined> | null)?.[BROKEN_REF];
  if (broken) throw new ToolsearchError("openapi_invalid", `${source}: $ref ${String(broken.ref)} cannot be resolved (${String(broken.reason)})`);
}

/** Reads a JSON pointer (`#/components/schemas/Pet`) in the document, or undefined when nothing is there. */
export function readPointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  const parts = ref.slice(1).split("/").slice(1).map((p) => decodeURIComponent(p).replace(/~1/g, "/").replace(/~0/g, "~"));
  let node: unknown = doc;
  for (const part of parts) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** Whether a schema has parts (properties, items, alternatives) that could nest further. */
function isComposite(schema: unknown): schema is Record<string, unknown> {
  if (typeof schema !== "object" || schema === null) return false;
  return ["properties", "items", "oneOf", "anyOf", "allOf", "additionalProperties", "$ref"].some((k) => Object.hasOwn(schema, k));
}

function isRef(value: unknown): value is { $ref: string } {
  return typeof value === "object" && value !== null && typeof (value as { $ref?: unknown }).$ref === "string";
}

/**
 * Follows a chain of `$ref`s to a non-schema object (a parameter, a request body, a security scheme).
 * Throws `openapi_invalid` naming the reference when it leads nowhere or loops.
 */
export function derefObject<T = Record<string, unknown>>(doc: unknown, value: unknown, source: string): T {
  const seen = new Set<string>();
  let node = value;
  refuseBroken(node, source);
  while (isRef(node)) {
    const ref = node.$ref;
    if (seen.has(ref)) throw new ToolsearchError("openapi_invalid", `${source}: $ref ${ref} refers to itself`);
    seen.add(ref);
    const target = readPointer(doc, ref);
    if (target === undefined) throw new ToolsearchError("openapi_invalid", `${source}: $ref ${ref} points to nothing in the document`);
    refuseBroken(target, source);
    node = target;
  }
  return node as T;
}

/** Copies schemas for one tool, collecting the `$defs` that cycles and deep references need. */
export class SchemaInliner {
  /** Schemas kept once and referred to as `#/$defs/<name>`. */
  readonly defs: Record<string, JsonSchema> = {};
  /** How many nested schemas were cut to plain objects for depth. */
  cut = 0;
  /** Slips repaired while copying (see `toJsonSchema`), each told once. */
  readonly repairs = new Set<string>();
  private readonly defNames = new Map<string, string>();
  private readonly context: SchemaContext;

  constructor(private readonly doc: unknown, private readonly source: string) {
    const openapi = (doc as { openapi?: unknown } | null)?.openapi;
    this.context = { version: String(openapi).startsWith("3.1") ? "3.1" : "3.0", repaired: (note) => this.repairs.add(note) };
  }

  /** A self-contained JSON Schema for an OpenAPI schema object (OpenAPI 3.0 keywords translated). */
  inline(schema: unknown): JsonSchema {
    return this.copy(schema, []) as JsonSchema;
  }

  private copy(node: unknown, path: string[]): unknown {
    if (Array.isArray(node)) return node.map((item) => this.copy(item, path));
    if (typeof node !== "object" || node === null) return node;
    refuseBroken(node, this.source);
    if (isRef(node)) return this.follow(node, path);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYS.has(key)) out[key] = value; // data, not schemas: a "$ref" key inside them is not a reference
      else if (MAP_KEYS.has(key) && typeof value === "object" && value !== null && !Array.isArray(value)) {
        // Keys of these maps are property names, so they are never read as schema keywords.
        out[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, this.copy(schema, path)]));
      } else out[key] = this.copy(value, path);
    }
    return toJsonSchema(out, this.context);
  }

  private follow(node: { $ref: string }, path: string[]): unknown {
    const { $ref: ref, ...siblings } = node as { $ref: string } & Record<string, unknown>;
    const extra = this.copy(siblings, path) as Record<string, unknown>;
    if (path.includes(ref)) return { $ref: `#/$defs/${this.define(ref)}`, ...extra };
    const target = readPointer(this.doc, ref);
    if (target === undefined) throw new ToolsearchError("openapi_invalid", `${this.source}: $ref ${ref} points to nothing in the document`);
    if (path.length >= MAX_REF_DEPTH && isComposite(target)) return { ...this.stub(ref, target), ...extra };
    const copied = this.copy(target, [...path, ref]);
    return typeof copied === "object" && copied !== null ? { ...copied, ...extra } : copied;
  }

  /** A plain object standing for a schema nested too deep: its type and description, and what was left out. */
  private stub(ref: string, target: Record<string, unknown>): JsonSchema {
    this.cut++;
    const name = ref.split("/").pop() ?? "object";
    const about = typeof target.description === "string" ? `${target.description} ` : "";
    const type = target.type === "array" ? "array" : "object";
    return { type, description: `${about}(A ${name}${type === "array" ? " list" : ""}; its fields are not listed here: nested too deep.)`.trim() };
  }

  /** The `$defs` name of a reference, copying its schema there on first use. */
  private define(ref: string): string {
    const known = this.defNames.get(ref);
    if (known) return known;
    const base = (ref.split("/").pop() ?? "schema").replace(/[^a-zA-Z0-9_.-]/g, "_") || "schema";
    let name = base;
    for (let n = 2; Object.hasOwn(this.defs, name); n++) name = `${base}_${n}`;
    this.defNames.set(ref, name);
    this.defs[name] = {}; // reserved before copying, so the schema's own references to itself find the name
    const target = readPointer(this.doc, ref);
    if (target === undefined) throw new ToolsearchError("openapi_invalid", `${this.source}: $ref ${ref} points to nothing in the document`);
    this.defs[name] = this.copy(target, [ref]) as JsonSchema;
    return name;
  }
}
