/**
 * Input validation for tool calls: the model's input is checked against the tool's `input_schema` with ajv. Obvious
 * type slips are coerced (`"5"` → 5, `"true"` → true), defaults from the schema are filled in, and anything still
 * wrong becomes one message that says, per property, what to fix, so the model can correct itself and call again.
 *
 * @example
 * ```ts
 * const validator = new InputValidator();
 * validator.validate("trigger_reorder", schema, { sku: "SP-1", quantity: "5" });
 * // { ok: true, input: { sku: "SP-1", quantity: 5, urgent: false } }
 * validator.validate("trigger_reorder", schema, { quantity: "many" });
 * // { ok: false, problems: [...], message: 'Invalid input for trigger_reorder: … Fix the input and call trigger_reorder again.' }
 * ```
 */
import type { ErrorObject, Options, ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { type AjvCore, ajvForDraft, type SchemaDraft, schemaDraftCheck, schemaSizeProblem } from "../catalog/json-schema.js";
import type { JsonSchema } from "../catalog/tool.js";

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: AjvCore) => AjvCore;

/**
 * The result of validating one input: the coerced input with defaults, or what is wrong with it. `code` is
 * `invalid_arguments` when the input is at fault, `schema_too_large` when the tool's schema is too deep or too large
 * to check (then no input can pass: the tool must be fixed).
 */
export type InputCheck =
  | { ok: true; input: Record<string, unknown> }
  | { ok: false; code: "invalid_arguments" | "schema_too_large"; problems: string[]; message: string };

/** Options of an `InputValidator`. */
export interface InputValidatorOptions {
  /** Coerce obvious scalar slips such as "5" → 5 (default true). */
  coerce?: boolean;
  /** Fill in `default` values from the schema (default true). */
  useDefaults?: boolean;
}

/**
 * A compiled schema; or the reason it cannot be compiled (then inputs are passed through unchecked); or why it is
 * refused outright (over the size limits).
 */
type Compiled = { validate: ValidateFunction } | { skip: string } | { tooLarge: string };

/** Validates tool inputs; compiled validators are cached per schema object. */
export class InputValidator {
  private readonly ajvOptions: Options;
  private readonly byDraft = new Map<SchemaDraft, AjvCore>();
  private readonly cache = new WeakMap<JsonSchema, Compiled>();

  constructor(options: InputValidatorOptions = {}) {
    this.ajvOptions = {
      strict: false,
      allErrors: true,
      coerceTypes: options.coerce ?? true,
      useDefaults: options.useDefaults ?? true,
      validateSchema: false,
    };
  }

  /** Checks `input` (a copy is coerced, the original is left alone). */
  validate(toolName: string, schema: JsonSchema, input: unknown): InputCheck {
    const compiled = this.compile(schema);
    if ("tooLarge" in compiled) {
      const message = `${toolName} cannot be called: its input schema is refused (${compiled.tooLarge}). Tell the user the tool is broken, or use another tool.`;
      return { ok: false, code: "schema_too_large", problems: [compiled.tooLarge], message };
    }
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      const problems = [`the input must be a JSON object (got ${describeValue(input)})`];
      return { ok: false, code: "invalid_arguments", problems, message: invalidMessage(toolName, schema, problems) };
    }
    const copy = structuredClone(input) as Record<string, unknown>;
    if ("skip" in compiled) return { ok: true, input: copy };
    if (compiled.validate(copy)) return { ok: true, input: copy };
    const problems = describeErrors(compiled.validate.errors ?? [], copy);
    return { ok: false, code: "invalid_arguments", problems, message: invalidMessage(toolName, schema, problems) };
  }

  private compile(schema: JsonSchema): Compiled {
    const cached = this.cache.get(schema);
    if (cached) return cached;
    let compiled: Compiled;
    const tooLarge = schemaSizeProblem(schema);
    if (tooLarge) compiled = { tooLarge };
    else {
      try {
        // The draft whose meta-schema accepts the schema decides what its keywords mean (e.g. a boolean exclusiveMinimum).
        const { $schema: _ignored, $id: _id, ...body } = schema;
        compiled = { validate: this.ajv(schemaDraftCheck(schema).draft).compile(body) };
      } catch (error) {
        // A schema ajv cannot compile (e.g. a $ref to elsewhere) must not block the tool: the handler sees the input as sent.
        compiled = { skip: error instanceof Error ? error.message : String(error) };
      }
    }
    this.cache.set(schema, compiled);
    return compiled;
  }

  private ajv(draft: SchemaDraft): AjvCore {
    let ajv = this.byDraft.get(draft);
    if (!ajv) this.byDraft.set(draft, (ajv = addFormats(ajvForDraft(draft, this.ajvOptions))));
    return ajv;
  }
}

/** One line per problem, naming the property path in dotted form. */
export function describeErrors(errors: ErrorObject[], input: unknown): string[] {
  const lines: string[] = [];
  for (const error of errors) {
    const line = describeError(error, input);
    if (line && !lines.includes(line)) lines.push(line);
  }
  return lines;
}

function describeError(error: ErrorObject, input: unknown): string | undefined {
  const path = propertyPath(error.instancePath);
  const where = path ? `"${path}"` : "the input";
  const value = valueAt(input, error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required": {
      const missing = joinPath(path, String(params.missingProperty));
      return `missing required property "${missing}"`;
    }
    case "additionalProperties":
      return `unexpected property "${joinPath(path, String(params.additionalProperty))}": remove it`;
    case "type":
      return `${where} must be ${article(String(params.type))} (got ${describeValue(value)})`;
    case "enum":
      return `${where} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")} (got ${describeValue(value)})`;
    case "const":
      return `${where} must be ${JSON.stringify(params.allowedValue)} (got ${describeValue(value)})`;
    case "if":
      return undefined; // the failing "then"/"else" branch has its own error
    default:
      return `${where} ${error.message ?? "is invalid"}${value === undefined ? "" : ` (got ${describeValue(value)})`}`;
  }
}

/** The message the model reads: what is wrong, what the schema expects, and to call again. */
export function invalidMessage(toolName: string, schema: JsonSchema, problems: string[]): string {
  const expected = summarizeParameters(schema);
  return [
    `Invalid input for ${toolName}:`,
    ...problems.map((p) => `- ${p}`),
    ...(expected ? [`Expected parameters: ${expected}.`] : []),
    `Fix the input and call ${toolName} again.`,
  ].join("\n");
}

/** "sku (string, required), quantity (integer, required), urgent (boolean)" */
export function summarizeParameters(schema: JsonSchema): string {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties)
    .map(([name, prop]) => {
      const facts = [typeOf(prop), ...(required.has(name) ? ["required"] : [])].filter(Boolean);
      return facts.length ? `${name} (${facts.join(", ")})` : name;
    })
    .join(", ");
}

function typeOf(prop: Record<string, unknown>): string {
  if (Array.isArray(prop?.enum)) return `one of ${prop.enum.map((v) => JSON.stringify(v)).join("|")}`;
  if (typeof prop?.type === "string") return prop.type;
  if (Array.isArray(prop?.type)) return prop.type.join("|");
  return "";
}

function propertyPath(instancePath: string): string {
  return instancePath
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : part))
    .join(".")
    .replace(/\.\[/g, "[");
}

function joinPath(base: string, name: string): string {
  return base ? `${base}.${name}` : name;
}

function valueAt(input: unknown, instancePath: string): unknown {
  let node = input;
  for (const part of instancePath.split("/").slice(1)) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return node;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** A short, readable rendering of a value for error messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "object") return "an object";
  const text = JSON.stringify(value);
  return `${typeof value} ${text.length > 60 ? `${text.slice(0, 57)}…` : text}`;
}
