/**
 * Runs the lint rules over a catalog: reads items leniently, runs per-tool and catalog rules, and scores the result.
 *
 * @example
 * ```ts
 * const report = lintFile("catalog.json", { ignore: ["name/verb-noun"] });
 * report.findings.filter((f) => f.severity === "error");
 * ```
 */
import { ToolsearchError } from "../errors.js";
import { type Analyzer, createAnalyzer } from "../text/analyzer.js";
import { closestNames } from "../text/suggest.js";
import { findNeighbours } from "./neighbours.js";
import { readCatalogItems, toLintTool } from "./read-tools.js";
import { CATALOG_RULES } from "./rules/catalog.js";
import { DESCRIPTION_RULES } from "./rules/descriptions.js";
import { NAME_RULES } from "./rules/names.js";
import { POISON_RULES } from "./rules/poison.js";
import { SCHEMA_RULES } from "./rules/schemas.js";
import { type Finding, type LintContext, type LintRule, type LintTool, type Neighbour, type Severity, SEVERITIES } from "./types.js";

/** Every rule, in report order: names, descriptions, schemas, catalog, poisoning. */
export const LINT_RULES: readonly LintRule[] = [...NAME_RULES, ...DESCRIPTION_RULES, ...SCHEMA_RULES, ...CATALOG_RULES, ...POISON_RULES];

/** Options of one lint run. */
export interface LintOptions {
  /** Run only these rules: ids (`schema/param-undescribed`) or families (`schema`). Default: all. */
  rules?: string[];
  /** Skip these rules: ids or families. */
  ignore?: string[];
  /** The analysis pipeline for mention checks and the look-alike search (default: the project's default analyzer). */
  analyzer?: Analyzer;
}

/** The result of a lint run (SPEC §4 `{tools, findings}`, plus a score and counts). */
export interface LintReport {
  /** Number of items in the catalog. */
  tools: number;
  findings: Finding[];
  /** 0–100: the mean per-tool score (see `scoreTools`). */
  score: number;
  /** Findings per severity. */
  summary: Record<Severity, number>;
}

/** How much one finding of each severity takes off a tool's score (a tool scores 1 minus these, at least 0). */
export const SEVERITY_PENALTY: Record<Severity, number> = { error: 1, warning: 0.25, info: 0.05 };

function matches(rule: LintRule, selector: string): boolean {
  return rule.id === selector || rule.id.startsWith(`${selector}/`);
}

/** Resolves `--rule`/`--ignore` selectors to rules; an unknown selector throws `invalid_option` with suggestions. */
export function selectRules(only: string[] = [], ignore: string[] = []): LintRule[] {
  const families = [...new Set(LINT_RULES.map((r) => r.id.split("/")[0]))];
  for (const selector of [...only, ...ignore]) {
    if (LINT_RULES.some((rule) => matches(rule, selector))) continue;
    const close = closestNames(selector, [...LINT_RULES.map((r) => r.id), ...families]);
    const hint = close.length ? ` Did you mean: ${close.join(", ")}?` : "";
    throw new ToolsearchError("invalid_option", `Unknown lint rule ${JSON.stringify(selector)}.${hint} (toolsearch lint --list-rules shows them all)`);
  }
  return LINT_RULES.filter((rule) => (only.length === 0 || only.some((s) => matches(rule, s))) && !ignore.some((s) => matches(rule, s)));
}

/** Lints catalog items given in memory, in any tool shape; broken items become findings. */
export function lintTools(items: unknown[], options: LintOptions = {}): LintReport {
  const analyzer = options.analyzer ?? createAnalyzer();
  const rules = selectRules(options.rules, options.ignore);
  const tools = items.map((item, index) => toLintTool(item, index, analyzer));
  let neighbours: Map<number, Neighbour> | undefined;
  const context: LintContext = { analyzer, tools, neighbours: () => (neighbours ??= findNeighbours(tools, analyzer)) };
  const perTool: Finding[][] = tools.map(() => []);
  for (const rule of rules) {
    const add = (tool: LintTool, message: string) => perTool[tool.index].push({ tool: tool.id, rule: rule.id, severity: rule.severity, message });
    if (rule.checkTool) for (const tool of tools) for (const message of rule.checkTool(tool, context)) add(tool, message);
    if (rule.checkCatalog) for (const hit of rule.checkCatalog(context)) add(tools[hit.tool], hit.message);
  }
  const rank = (s: Severity) => SEVERITIES.indexOf(s);
  const findings = perTool.flatMap((list) => list.sort((a, b) => rank(a.severity) - rank(b.severity)));
  return { tools: tools.length, findings, score: scoreTools(tools.length, findings), summary: countSeverities(findings) };
}

/** Lints a catalog file (JSON, `{tools:[…]}`, JSONL or YAML). Only an unreadable or unparsable file throws. */
export function lintFile(path: string, options: LintOptions = {}): LintReport {
  return lintTools(readCatalogItems(path), options);
}

/**
 * The catalog score, 0–100: each tool starts at 1 and loses `SEVERITY_PENALTY` per finding (not below 0); the score
 * is the mean over tools. An error alone zeroes a tool; four warnings do too.
 */
export function scoreTools(toolCount: number, findings: Finding[]): number {
  if (toolCount === 0) return 100;
  const lost = new Map<string, number>();
  for (const f of findings) lost.set(f.tool, (lost.get(f.tool) ?? 0) + SEVERITY_PENALTY[f.severity]);
  let total = toolCount;
  for (const penalty of lost.values()) total -= Math.min(1, penalty);
  return Math.round((100 * Math.max(0, total)) / toolCount);
}

function countSeverities(findings: Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}

/** Findings per rule id, in rule order, leaving out rules with none. */
export function countByRule(findings: Finding[]): { rule: string; severity: Severity; count: number }[] {
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
  return LINT_RULES.filter((r) => counts.has(r.id)).map((r) => ({ rule: r.id, severity: r.severity, count: counts.get(r.id)! }));
}
