/**
 * Catalog rules (SPEC §3): valid names, unique names, a JSON Schema that compiles and describes an object.
 * Validation collects every problem so a refused file can be fixed in one pass.
 */
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Problem } from "../errors.js";
import { detectShape, readShape, toTool } from "./shapes.js";
import type { Tool } from "./tool.js";

/** The tool-name rule shared by Anthropic's and OpenAI's APIs. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

// Meta-schema checks only (no code generation): compiling 12k validators would dominate load time.
const draft07 = new Ajv({ strict: false, validateFormats: false });
const draft2020 = new Ajv2020({ strict: false, validateFormats: false });

function metaSchemaErrors(schema: Record<string, unknown>): string | undefined {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  const ajv = /2019-09|2020-12/.test(declared) ? draft2020 : draft07;
  const { $schema: _ignored, ...body } = schema;
  if (ajv.validateSchema(body)) return undefined;
  return ajv.errorsText(ajv.errors, { dataVar: "input_schema" });
}

/** Why a JSON Schema is not usable as a tool's input schema, or undefined when it is. */
export function schemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    return "input schema must be a JSON Schema object";
  }
  const type = (schema as Record<string, unknown>).type;
  if (type !== "object") return `input schema "type" must be "object" (found ${JSON.stringify(type)})`;
  const errors = metaSchemaErrors(schema as Record<string, unknown>);
  return errors ? `input schema is not valid JSON Schema (${errors})` : undefined;
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
  const at = (rule: string, name?: string): Problem => ({ file, index, name, rule, message: rule });
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
  const badSchema = schemaProblem(raw.schema);
  if (badSchema) problems.push(at(badSchema, name));
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
