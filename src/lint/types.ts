/** The vocabulary of the linter: severities, findings, rules, and the view of a tool that rules read. */
import type { Analyzer } from "../text/analyzer.js";

/** How much a finding matters: `error` breaks an API or a contract, `warning` misleads a model, `info` is advice. */
export type Severity = "error" | "warning" | "info";

export const SEVERITIES: readonly Severity[] = ["error", "warning", "info"];

/** One problem with one tool (SPEC §4: `{tool, rule, severity, message}`). */
export interface Finding {
  /** The tool's name, or `#<index>` for an item that has no usable name. */
  tool: string;
  /** The rule id, e.g. `name/verb-noun`. */
  rule: string;
  severity: Severity;
  message: string;
}

/** A rule family; the id of every rule starts with its family and a slash. */
export type RuleFamily = "name" | "description" | "schema" | "catalog" | "poison";

/** One top-level parameter of a tool's input schema. */
export interface LintParam {
  name: string;
  /** The property's schema (an empty object when the source gave something else). */
  schema: Record<string, unknown>;
  required: boolean;
}

/**
 * A tool as the linter sees it: read leniently, so that a broken name or schema becomes a finding instead of a
 * refused file. Fields that the source lacks or gives in the wrong type are left empty.
 */
export interface LintTool {
  /** Position in the file, zero-based. */
  index: number;
  /** The name used in findings: the tool's name, or `#<index>`. */
  id: string;
  /** The name when it is a string (valid or not). */
  name?: string;
  /** Why the item is not a tool at all (not an object, unknown shape, a schema over the size limits), when that is so. */
  shapeError?: string;
  /** The description, or "" when absent or not a string. */
  description: string;
  /** The raw `description` value, to tell "absent" from "not a string". */
  rawDescription: unknown;
  /** The input schema as given (may be anything). */
  schema: unknown;
  /** Top-level parameters, in schema order ([] when the schema has none or is broken). */
  params: LintParam[];
  /** The part of the name before a `__` separator (an MCP server prefix), or "". */
  namespace: string;
  /** The name without its namespace. */
  localName: string;
  /** The words of the local name, lower case (`getUserById` → get, user, by, id). */
  words: string[];
  /** Analyzed terms of the local name. */
  nameTerms: string[];
  /** Analyzed terms of the description, in order. */
  descriptionTerms: string[];
  /** Analyzed terms of the name and the description, for mention checks. */
  terms: Set<string>;
  category?: string;
}

/** Shared, lazily computed facts a rule may need; built once per lint run. */
export interface LintContext {
  analyzer: Analyzer;
  tools: LintTool[];
  /** Lazily computed search neighbours (see neighbours.ts); catalog rules share one pass. */
  neighbours(): Map<number, Neighbour>;
}

/** A tool's closest other tool by the project's BM25F engine, queried with the tool's own text. */
export interface Neighbour {
  /** Index of the closest other tool. */
  other: number;
  /** The other tool's score relative to the tool's own score for the same query (1 = as good a match as itself). */
  closeness: number;
}

/** What a rule reports: a message about one tool (by index). */
export interface RuleHit {
  tool: number;
  message: string;
}

/** A lint rule: an id, a severity, why it matters, how to fix it, and a check. */
export interface LintRule {
  /** `family/name`, e.g. `schema/param-undescribed`. */
  id: string;
  severity: Severity;
  /** One line: why a model (or search) suffers when the rule is broken. */
  rationale: string;
  /** One line: what to change. */
  fix: string;
  /** Checks one tool; returns a message per problem. */
  checkTool?: (tool: LintTool, context: LintContext) => string[];
  /** Checks the catalog as a whole; returns messages attached to tools. */
  checkCatalog?: (context: LintContext) => RuleHit[];
}
