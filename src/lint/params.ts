/** Facts about one parameter that several rules share: is it described, constrained, mentioned in the prose? */
import type { Analyzer } from "../text/analyzer.js";
import type { LintParam, LintTool } from "./types.js";
import { isMentioned } from "./words.js";

/** Keywords that pin down a value: with any of them the model knows what is valid. */
const CONSTRAINT_KEYS = [
  "enum", "const", "format", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
  "minLength", "maxLength", "minItems", "maxItems", "oneOf", "anyOf", "$ref",
] as const;

/** The declared type(s) of a property, as a list (`["string", "null"]` stays a list). */
export function typesOf(schema: Record<string, unknown>): string[] {
  const type = schema.type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  return [];
}

/** Whether the property has a description or title of its own. */
export function hasOwnDescription(schema: Record<string, unknown>): boolean {
  const text = [schema.description, schema.title].find((v) => typeof v === "string" && v.trim() !== "");
  return text !== undefined;
}

/** Whether the property carries a constraint (enum, format, pattern, bounds, lengths …) or is a plain boolean. */
export function isConstrained(schema: Record<string, unknown>): boolean {
  if (CONSTRAINT_KEYS.some((key) => schema[key] !== undefined)) return true;
  const types = typesOf(schema);
  if (types.length > 0 && types.every((t) => t === "boolean" || t === "null")) return true;
  const items = schema.items;
  return typeof items === "object" && items !== null && CONSTRAINT_KEYS.some((key) => (items as Record<string, unknown>)[key] !== undefined);
}

/** Whether the tool's name or description mentions the parameter (by its words, stemmed). */
export function isMentionedByTool(tool: LintTool, param: LintParam, analyzer: Analyzer): boolean {
  return isMentioned(param.name, tool.terms, (text) => analyzer.analyze(text));
}

/** Whether the model learns anything about a parameter beyond its name and type. */
export function isExplained(tool: LintTool, param: LintParam, analyzer: Analyzer): boolean {
  return hasOwnDescription(param.schema) || isConstrained(param.schema) || isMentionedByTool(tool, param, analyzer);
}
