/**
 * JSON Schema as real servers write it. MCP servers emit every draft in use — draft-04 (boolean `exclusiveMinimum`),
 * 06, 07 (zod), 2019-09 and 2020-12 (pydantic `$defs`) — and sometimes declare one draft while writing another. A
 * schema is accepted when the meta-schema of any of these drafts accepts it; the draft it declares (`$schema`), or
 * else the one its keywords point to, is tried first and is the one named when every draft refuses it.
 *
 * Depth and size are checked first, without recursion, so that a schema nested thousands of levels deep is refused
 * with `schema_too_large` instead of overflowing the stack of the validators that come after.
 *
 * @example
 * ```ts
 * schemaDraftCheck({ type: "object", properties: { n: { type: "integer", minimum: 0, exclusiveMinimum: true } } });
 * // { draft: "draft-04" }
 * schemaDraftCheck({ type: "object", properties: { n: { type: "intger" } } });
 * // { draft: "draft-07", error: "input_schema/properties/n/type must be equal to one of the allowed values …" }
 * ```
 */
import { createRequire } from "node:module";
import { Ajv, type Options } from "ajv";
import type { Ajv2019 } from "ajv/dist/2019.js";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type * as AjvCoreModule from "ajv/dist/core.js";

/** Any ajv class (draft-04, 07, 2019-09, 2020-12 share this core). */
export type AjvCore = AjvCoreModule.default;

/** The JSON Schema drafts toolsearch accepts, newest first. */
export const SCHEMA_DRAFTS = ["2020-12", "2019-09", "draft-07", "draft-06", "draft-04"] as const;
export type SchemaDraft = (typeof SCHEMA_DRAFTS)[number];

/** Limits on one input schema, checked before anything else reads it. */
export const SCHEMA_LIMITS = {
  /** Nesting of JSON objects and arrays (each schema level under `properties` is two). Real tools stay under 10. */
  maxDepth: 100,
  /** Keys, values and array elements in all. The largest real tool schemas we have seen hold a few hundred. */
  maxValues: 50_000,
} as const;


const require = createRequire(import.meta.url);

/**
 * A new ajv instance that validates (and compiles) schemas of `draft`. The classes of the drafts other than 07 are
 * required on first use, not imported: most schemas are draft-07, and each class costs start-up time.
 */
export function ajvForDraft(draft: SchemaDraft, options: Options): AjvCore {
  switch (draft) {
    case "2020-12":
      return new (require("ajv/dist/2020.js") as { Ajv2020: typeof Ajv2020 }).Ajv2020(options);
    case "2019-09":
      return new (require("ajv/dist/2019.js") as { Ajv2019: typeof Ajv2019 }).Ajv2019(options);
    case "draft-04": {
      // ajv-draft-04 ships CommonJS, its class as `default`.
      const module = require("ajv-draft-04") as { default?: unknown };
      return new ((module.default ?? module) as new (options?: Options) => AjvCore)(options);
    }
    case "draft-06": {
      // Draft-06 is draft-07 without if/then/else: ajv's draft-07 class with the draft-06 meta-schema as default.
      const ajv = new Ajv({ ...options, meta: false });
      ajv.addMetaSchema(require("ajv/dist/refs/json-schema-draft-06.json") as object);
      ajv.opts.defaultMeta = "http://json-schema.org/draft-06/schema";
      return ajv;
    }
    default:
      return new Ajv(options);
  }
}

/** Why a value breaks `SCHEMA_LIMITS`, or undefined. Iterative, so any depth is safe to inspect. */
export function schemaSizeProblem(schema: unknown): string | undefined {
  const stack: [unknown, number][] = [[schema, 1]];
  let values = 0;
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (++values > SCHEMA_LIMITS.maxValues) {
      return `input schema holds more than the limit of ${SCHEMA_LIMITS.maxValues} keys and values`;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth > SCHEMA_LIMITS.maxDepth) return `input schema nests deeper than the limit of ${SCHEMA_LIMITS.maxDepth} levels`;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return undefined;
}

/** The draft a schema declares in `$schema`, when it names one toolsearch knows. */
export function declaredDraft(schema: Record<string, unknown>): SchemaDraft | undefined {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  return SCHEMA_DRAFTS.find((draft) => declared.includes(draft));
}

// Keywords that exist in one draft only (or that changed meaning): the first one found decides the guess.
const DRAFT_KEYWORDS: [SchemaDraft, (key: string, value: unknown) => boolean][] = [
  ["draft-04", (key, value) => (key === "exclusiveMinimum" || key === "exclusiveMaximum") && typeof value === "boolean"],
  ["2019-09", (key) => key === "$recursiveRef" || key === "$recursiveAnchor"],
  ["2020-12", (key) => ["prefixItems", "$dynamicRef", "$dynamicAnchor", "$defs", "dependentRequired", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems"].includes(key)],
  ["draft-07", (key) => key === "if" || key === "then" || key === "else"],
];

/**
 * The draft a schema is most likely written in: the one it declares, else the one its keywords belong to, else
 * draft-07 (what most servers write, through zod; its meta-schema is also the quickest to check). Assumes `schemaSizeProblem` passed.
 */
export function guessDraft(schema: Record<string, unknown>): SchemaDraft {
  const declared = declaredDraft(schema);
  if (declared) return declared;
  const stack: unknown[] = [schema];
  const found = new Set<SchemaDraft>();
  while (stack.length) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null) continue;
    for (const [key, child] of Object.entries(value)) {
      for (const [draft, test] of DRAFT_KEYWORDS) if (test(key, child)) found.add(draft);
      stack.push(child);
    }
  }
  return DRAFT_KEYWORDS.map(([draft]) => draft).find((draft) => found.has(draft)) ?? "draft-07";
}

// Meta-schema checks only (no code generation): compiling 12k validators would dominate load time.
const metaValidators = new Map<SchemaDraft, AjvCore>();

function metaValidator(draft: SchemaDraft): AjvCore {
  let ajv = metaValidators.get(draft);
  if (!ajv) metaValidators.set(draft, (ajv = ajvForDraft(draft, { strict: false, validateFormats: false })));
  return ajv;
}

/** The meta-schema errors of `schema` under `draft`, or undefined when that draft accepts it. */
function metaSchemaErrors(schema: Record<string, unknown>, draft: SchemaDraft): string | undefined {
  const ajv = metaValidator(draft);
  // Each instance checks against its own draft's meta-schema when `$schema` is absent (a declared one may be wrong).
  const { $schema: _declared, ...body } = schema;
  if (ajv.validateSchema(body)) return undefined;
  return ajv.errorsText(ajv.errors, { dataVar: "input_schema" });
}

/** The draft under which a schema is valid, or the likeliest draft and why it refuses the schema. */
export type DraftCheck = { draft: SchemaDraft; error?: undefined } | { draft: SchemaDraft; error: string };

/** Finds a draft whose meta-schema accepts `schema`, trying its own draft first. Assumes `schemaSizeProblem` passed. */
export function schemaDraftCheck(schema: Record<string, unknown>): DraftCheck {
  const likely = guessDraft(schema);
  const firstError = metaSchemaErrors(schema, likely);
  if (firstError === undefined) return { draft: likely };
  for (const draft of SCHEMA_DRAFTS) if (draft !== likely && metaSchemaErrors(schema, draft) === undefined) return { draft };
  return { draft: likely, error: firstError };
}
/** "draft 2020-12", "draft-04": how messages name a draft. */
export function draftLabel(draft: SchemaDraft): string {
  return draft.startsWith("draft-") ? draft : `draft ${draft}`;
}
