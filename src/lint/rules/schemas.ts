/**
 * Schema rules: a valid object schema, required fields that exist, and parameters a model can fill correctly —
 * described, and constrained where their name or description says the valid values form a set, a format or a range.
 * Only top-level parameters are checked; nested objects are left to their own descriptions.
 */
import { schemaProblem } from "../../catalog/validate.js";
import { isExplained, typesOf } from "../params.js";
import type { LintParam, LintRule, LintTool } from "../types.js";
import { nameWords } from "../words.js";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A string parameter with nothing that restricts its values. */
function isFreeString(schema: Record<string, unknown>): boolean {
  const types = typesOf(schema);
  if (!types.includes("string")) return false;
  return ["enum", "const", "format", "pattern", "oneOf", "anyOf", "$ref"].every((key) => schema[key] === undefined);
}

function descriptionOf(schema: Record<string, unknown>): string {
  return typeof schema.description === "string" ? schema.description : "";
}

function list(names: string[]): string {
  return names.map((n) => JSON.stringify(n)).join(", ");
}

export const schemaInvalid: LintRule = {
  id: "schema/invalid",
  severity: "error",
  rationale: "An input schema that is missing or is not valid JSON Schema is refused by the APIs or gives the model no contract.",
  fix: "Give the tool a valid JSON Schema object, e.g. {\"type\": \"object\", \"properties\": {…}}.",
  checkTool(tool) {
    if (tool.shapeError) return [tool.shapeError];
    if (isRecord(tool.schema) && tool.schema.type !== "object") return [];
    const problem = schemaProblem(tool.schema);
    return problem ? [problem] : [];
  },
};

export const schemaNotObject: LintRule = {
  id: "schema/not-object",
  severity: "error",
  rationale: "Tool inputs are named arguments: the APIs require an input schema whose type is \"object\".",
  fix: "Wrap the value in an object schema: {\"type\": \"object\", \"properties\": {\"value\": …}}.",
  checkTool(tool) {
    if (!isRecord(tool.schema) || tool.schema.type === "object") return [];
    return [`input schema "type" is ${JSON.stringify(tool.schema.type)}, not "object"`];
  },
};

export const schemaRequiredMissing: LintRule = {
  id: "schema/required-missing",
  severity: "error",
  rationale: "A required field that is not among the properties has no type or description, yet every call must supply it.",
  fix: "Add the field to properties, or drop it from required.",
  checkTool(tool) {
    if (!isRecord(tool.schema) || !Array.isArray(tool.schema.required)) return [];
    const properties = isRecord(tool.schema.properties) ? tool.schema.properties : {};
    const missing = tool.schema.required.filter((r): r is string => typeof r === "string" && !(r in properties));
    return missing.length ? [`required ${missing.length === 1 ? "field" : "fields"} ${list(missing)} not in properties`] : [];
  },
};

export const schemaParamUndescribed: LintRule = {
  id: "schema/param-undescribed",
  severity: "warning",
  rationale: "A parameter with no description, no constraint and no mention in the tool's description leaves the model to guess its meaning and format.",
  fix: "Describe each parameter (meaning, format, an example), or constrain it with enum/format/pattern/bounds.",
  checkTool(tool, context) {
    const bare = tool.params.filter((p) => !isExplained(tool, p, context.analyzer)).map((p) => p.name);
    if (bare.length === 0) return [];
    return [`${bare.length === 1 ? "parameter" : "parameters"} ${list(bare)} ${bare.length === 1 ? "has" : "have"} no description or constraint`];
  },
};

/** Descriptions that spell out a closed set of values. */
const ENUM_CUE = /\b(one of|possible values|allowed values|valid values|accepted values|supported values|available values|valid options|options are|can be one|must be one)\b|['"`][\w./-]+['"`]\s*(,|\bor\b|\/|\|)\s*['"`][\w./-]+['"`]|\b\w+\s*\|\s*\w+\s*\|\s*\w+\b|\basc(ending)?\b.{0,12}\bdesc(ending)?\b/i;
/** Names whose values are a closed set by nature. */
const ENUM_NAMES = new Set(["status", "direction", "unit", "units", "sortorder", "sortdirection", "order_direction", "orderdirection"]);

export const schemaEnumLike: LintRule = {
  id: "schema/enum-like-string",
  severity: "warning",
  rationale: "A string whose valid values are a fixed set, listed only in prose, invites spellings the tool rejects; an enum lets the API enforce them.",
  fix: "List the values in \"enum\" (and keep the prose for what each means).",
  checkTool(tool) {
    const hits = tool.params.filter((p) => isFreeString(p.schema) && looksEnumerated(p)).map((p) => p.name);
    return hits.length ? [`${hits.length === 1 ? "string" : "strings"} ${list(hits)} ${hits.length === 1 ? "lists" : "list"} fixed values in prose but ${hits.length === 1 ? "has" : "have"} no enum`] : [];
  },
};

/** Prose that says the value is open after all ("any location as free-text"). */
const OPEN_VALUE_CUE = /\b(free[- ]?text|free[- ]form|any (value|string|text|name|location)|comma[- ]separated)\b/i;

function looksEnumerated(param: LintParam): boolean {
  const description = descriptionOf(param.schema);
  if (OPEN_VALUE_CUE.test(description)) return false;
  if (ENUM_CUE.test(description)) return true;
  return ENUM_NAMES.has(nameWords(param.name).join(""));
}

/** Formats a name implies, keyed by the name's last word (its head noun). */
const FORMAT_BY_HEAD: Record<string, string> = {
  date: "a date", datetime: "a date-time", timestamp: "a timestamp", email: "an email address", url: "a URL",
  uri: "a URI", phone: "a phone number", uuid: "a UUID", ip: "an IP address",
};
/** Prose that already states the format, which is enough for a model. */
const FORMAT_STATED = /\b(yyyy|mm\/dd|dd\/mm|iso[ -]?8601|rfc ?3339|rfc ?2822|e\.164|unix|epoch|format|https?:\/\/|@|\d{4}-\d{2}-\d{2}|example|e\.g\.)/i;

const VALIDATING_VERBS = new Set(["validate", "verify", "check", "test", "lint", "parse", "normalize", "format"]);

/** A default or an example value shows the expected spelling as well as a sentence would. */
function showsExample(schema: Record<string, unknown>): boolean {
  const sample = schema.default ?? (Array.isArray(schema.examples) ? schema.examples[0] : schema.example);
  return typeof sample === "string" && sample.trim() !== "";
}

export const schemaFormatMissing: LintRule = {
  id: "schema/format-missing",
  severity: "warning",
  rationale: "Dates, emails, URLs and phone numbers come in many spellings; without format, pattern or a stated format the model picks one at random.",
  fix: "Add \"format\" (date, date-time, email, uri …) or a \"pattern\", or state the expected format in the description.",
  checkTool(tool) {
    // A validator must accept malformed input to judge it: a format there would refuse the very values it checks.
    if (VALIDATING_VERBS.has(tool.words[0] ?? "")) return [];
    const hits: string[] = [];
    for (const p of tool.params) {
      if (!isFreeString(p.schema) || showsExample(p.schema)) continue;
      const words = nameWords(p.name);
      const head = words.at(-1) === "number" && words.at(-2) === "phone" ? "phone" : (words.at(-1) ?? "");
      const kind = FORMAT_BY_HEAD[head] ?? (words.length > 1 && head === "at" ? "a timestamp" : undefined);
      if (kind && !FORMAT_STATED.test(descriptionOf(p.schema))) hits.push(`${JSON.stringify(p.name)} (${kind})`);
    }
    return hits.length ? [`no format, pattern or stated format for ${hits.join(", ")}`] : [];
  },
};

/** Numeric names that imply a bounded range (a page size, a result count). */
const RANGE_NAME = /^(limit|pagesize|perpage|maxresults|numresults|maxitems|count|topk|topn|resultsperpage|numberofresults|maxcount)$/;
const BOUND_STATED = /\b(at most|up to|max(imum)?|no more than|between|less than|cannot exceed|limit(ed)? to|range)\b.{0,24}?\d|\d+\s*(-|–|to|\.\.)\s*\d+/i;

export const schemaNumberUnbounded: LintRule = {
  id: "schema/number-unbounded",
  severity: "warning",
  rationale: "A limit or page size without bounds lets the model ask for 0 or 10,000 results; bounds keep calls valid and responses small.",
  fix: "Add \"minimum\" and \"maximum\" (e.g. 1–100) and a default.",
  checkTool(tool) {
    const hits = tool.params.filter((p) => isUnboundedRange(tool, p)).map((p) => p.name);
    return hits.length ? [`${list(hits)} ${hits.length === 1 ? "has" : "have"} no maximum`] : [];
  },
};

function isUnboundedRange(tool: LintTool, param: LintParam): boolean {
  const types = typesOf(param.schema);
  if (!types.includes("integer") && !types.includes("number")) return false;
  if (!RANGE_NAME.test(nameWords(param.name).join(""))) return false;
  if (param.schema.maximum !== undefined || param.schema.exclusiveMaximum !== undefined || param.schema.enum !== undefined) return false;
  // A bound stated in prose, in the parameter's or the tool's description, is enough for the model.
  if (BOUND_STATED.test(descriptionOf(param.schema))) return false;
  return !mentionsBoundFor(tool.description, param.name);
}

/** Whether the tool description states a bound and names the parameter (the seed's "at most 100 …; use limit"). */
function mentionsBoundFor(description: string, paramName: string): boolean {
  return BOUND_STATED.test(description) && description.toLowerCase().includes(paramName.toLowerCase());
}

export const SCHEMA_RULES: LintRule[] = [
  schemaInvalid, schemaNotObject, schemaRequiredMissing, schemaParamUndescribed, schemaEnumLike, schemaFormatMissing,
  schemaNumberUnbounded,
];
