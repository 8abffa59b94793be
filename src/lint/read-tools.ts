/**
 * Reads catalog items leniently for linting: every item becomes a `LintTool`, whatever is wrong with it, so that
 * broken names and schemas are reported as findings instead of refusing the file (as `loadCatalogFile` does).
 */
import { schemaSizeProblem } from "../catalog/json-schema.js";
import { readRecords } from "../catalog/read-records.js";
import { detectShape, readShape } from "../catalog/shapes.js";
import type { Analyzer } from "../text/analyzer.js";
import type { LintParam, LintTool } from "./types.js";
import { nameWords, splitNamespace } from "./words.js";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The top-level parameters of a schema, or [] when it has none or is not an object schema. */
export function paramsOf(schema: unknown): LintParam[] {
  if (!isRecord(schema) || !isRecord(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : []);
  return Object.entries(schema.properties).map(([name, value]) => ({
    name,
    schema: isRecord(value) ? value : {},
    required: required.has(name),
  }));
}

/** Turns one catalog item into the linter's view of it. */
export function toLintTool(item: unknown, index: number, analyzer: Analyzer): LintTool {
  const shape = detectShape(item);
  if (typeof shape !== "string") {
    const name = isRecord(item) && typeof item.name === "string" ? item.name : undefined;
    return blank(index, name, shape.error, analyzer);
  }
  const raw = readShape(item as Record<string, unknown>, shape);
  const name = typeof raw.name === "string" ? raw.name : undefined;
  // A schema over the limits is reported once (schema/invalid) and never reaches rules that walk or serialize it.
  const tooLarge = schemaSizeProblem(raw.schema);
  if (tooLarge) return blank(index, name, `${tooLarge} (schema_too_large)`, analyzer);
  const description = typeof raw.description === "string" ? raw.description : "";
  const { namespace, localName } = splitNamespace(name ?? "");
  const nameTerms = analyzer.analyze(localName);
  const descriptionTerms = analyzer.analyze(description);
  const tool: LintTool = {
    index,
    id: name && name.trim() ? name : `#${index}`,
    name,
    description,
    rawDescription: raw.description,
    schema: raw.schema,
    params: paramsOf(raw.schema),
    namespace,
    localName,
    words: nameWords(localName),
    nameTerms,
    descriptionTerms,
    terms: new Set([...nameTerms, ...descriptionTerms]),
  };
  const category = (raw.extras as Record<string, unknown>).category;
  if (typeof category === "string") tool.category = category;
  return tool;
}

function blank(index: number, name: string | undefined, shapeError: string, analyzer: Analyzer): LintTool {
  const { namespace, localName } = splitNamespace(name ?? "");
  const nameTerms = analyzer.analyze(localName);
  return {
    index,
    id: name && name.trim() ? name : `#${index}`,
    name,
    shapeError,
    description: "",
    rawDescription: undefined,
    schema: undefined,
    params: [],
    namespace,
    localName,
    words: nameWords(localName),
    nameTerms,
    descriptionTerms: [],
    terms: new Set(nameTerms),
  };
}

/** Reads a catalog file (JSON, `{tools:[…]}`, JSONL or YAML) into raw items; only unreadable files throw. */
export function readCatalogItems(path: string): unknown[] {
  return readRecords(path, ["tools"]);
}
