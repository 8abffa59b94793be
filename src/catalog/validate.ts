/**
 * Catalog rules (SPEC §3): valid names, unique names, a JSON Schema that compiles and describes an object.
 * Validation collects every problem so a refused file can be fixed in one pass.
 */
import type { ErrorCode, Problem } from "../errors.js";
import { draftLabel, SCHEMA_DRAFTS, schemaDraftCheck, schemaSizeProblem } from "./json-schema.js";
import { detectShape, readShape, toTool } from "./shapes.js";
import type { Tool } from "./tool.js";

/** The tool-name rule shared by Anthropic's and OpenAI's APIs. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** What is wrong with an input schema, and the code that says so more precisely than the caller's own. */
export interface SchemaIssue {
  message: string;
  code?: ErrorCode;
}

/**
 * Why a JSON Schema is not usable as a tool's input schema, or undefined when it is. Any draft from 04 to 2020-12 is
 * accepted (see json-schema.ts); a refusal names the draft the schema declares or looks written in.
 */
export function schemaIssue(schema: unknown): SchemaIssue | undefined {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    return { message: "input schema must be a JSON Schema object" };
  }
  const tooLarge = schemaSizeProblem(schema);
  if (tooLarge) return { message: tooLarge, code: "schema_too_large" };
  const type = (schema as Record<string, unknown>).type;
  if (type !== "object") return { message: `input schema "type" must be "object" (found ${JSON.stringify(type)})` };
  const check = schemaDraftCheck(schema as Record<string, unknown>);
  if (check.error === undefined) return undefined;
  const others = SCHEMA_DRAFTS.filter((d) => d !== check.draft).map(draftLabel).join(", ");
  return { message: `input schema is not valid JSON Schema: under ${draftLabel(check.draft)}, ${check.error}; no other draft (${others}) accepts it either` };
}

/** `schemaIssue`'s message alone. */
export function schemaProblem(schema: unknown): string | undefined {
  return schemaIssue(schema)?.message;
}

/** Why a name is not a valid tool name, or undefined when it is. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== "string") return "name is missing or not a string";
  if (!TOOL_NAME_PATTERN.test(name)) return "name must match ^[a-zA-Z0-9_-]{1,64}$";
  return undefined;
}

/** Result of checking one item: the tool, or the problems that refuse it. */
export type ItemCheck = { tool: Tool; problems: [] } | { tool?: undefined; problems: Problem[] };

/** Checks one item of any shape and builds the `Tool` when it is valid. */
export function checkItem(item: unknown, index: number, file?: string): ItemCheck {
  const at = (rule: string, name?: string, code?: ErrorCode): Problem => ({ file, index, name, rule, message: rule, ...(code ? { code } : {}) });
  const shape = detectShape(item);
  if (typeof shape !== "string") return { problems: [at(shape.error)] };
  const raw = readShape(item as Record<string, unknown>, shape);
  const name = typeof raw.name === "string" ? raw.name : undefined;
  const problems: Problem[] = [];
  const badName = nameProblem(raw.name);
  if (badName) problems.push(at(badName, name));
  if (raw.description !== undefined && typeof raw.description !== "string") problems.push(at("description must be a string", name));
  const extras = raw.extras as Record<string, unknown>;
  if (extras.category !== undefined && typeof extras.category !== "string") problems.push(at("category must be a string", name));
  const badSchema = schemaIssue(raw.schema);
  if (badSchema) problems.push(at(badSchema.message, name, badSchema.code));
  if (problems.length) return { problems };
  return { tool: toTool(raw, shape), problems: [] };
}

/** Checks a whole list: every item, then name uniqueness. Returns all tools or all problems, never a part. */
export function checkCatalog(items: unknown[], file?: string): { tools: Tool[]; problems: Problem[] } {
  const tools: Tool[] = [];
  const problems: Problem[] = [];
  const firstIndex = new Map<string, number>();
  items.forEach((item, index) => {
    const checked = checkItem(item, index, file);
    if (!checked.tool) return void problems.push(...checked.problems);
    const seen = firstIndex.get(checked.tool.name);
    if (seen !== undefined) {
      const rule = `name must be unique (already used by item ${seen})`;
      problems.push({ file, index, name: checked.tool.name, rule, message: rule });
      return;
    }
    firstIndex.set(checked.tool.name, index);
    tools.push(checked.tool);
  });
  return problems.length ? { tools: [], problems } : { tools, problems };
}
