/** `toolsearch lint FILE [--json] [--fail-on error|warning] [--rule IDS] [--ignore IDS] [--list-rules]` */
import type { Command } from "commander";
import { ToolsearchError } from "../../errors.js";
import { countByRule, LINT_RULES, type LintReport, lintFile, selectRules } from "../../lint/runner.js";
import type { Finding, Severity } from "../../lint/types.js";
import { printJson, printLines, table, UsageError } from "../output.js";

interface LintFlags {
  json?: boolean;
  failOn?: Severity;
  rule?: string[];
  ignore?: string[];
  listRules?: boolean;
}

function parseFailOn(value: string): Severity {
  if (value === "error" || value === "warning" || value === "info") return value;
  throw new UsageError(`--fail-on takes error, warning or info (got ${JSON.stringify(value)})`);
}

/** Accepts repeated flags and comma-separated lists alike: `--rule a,b --rule c`. */
function collectList(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(",").map((s) => s.trim()).filter(Boolean)];
}

export function registerLint(program: Command): void {
  program
    .command("lint")
    .description("report on how well a catalog's tools are named, described and constrained")
    .argument("[file]", "tool catalog: JSON, {tools:[…]}, JSONL or YAML (any tool shape)")
    .option("--json", "machine-readable output: {tools, findings:[{tool, rule, severity, message}], score, summary}")
    .option("--fail-on <severity>", "exit 1 when a finding of this severity or worse exists (error, warning, info)", parseFailOn)
    .option("--rule <ids>", "run only these rules or families (comma-separated, repeatable)", collectList)
    .option("--ignore <ids>", "skip these rules or families (comma-separated, repeatable)", collectList)
    .option("--list-rules", "list the rules with severity, rationale and fix, then exit")
    .action((file: string | undefined, flags: LintFlags) => {
      if (flags.listRules) return listRules(flags.json);
      if (!file) throw new UsageError("lint needs a catalog file (or --list-rules)");
      const rules = flags.rule ?? [];
      const ignore = flags.ignore ?? [];
      checkSelectors(rules, ignore);
      const report = lintFile(file, { rules, ignore });
      if (flags.json) printJson(report);
      else printLines(humanReport(file, report));
      if (flags.failOn && failing(report.findings, flags.failOn)) {
        const count = report.findings.filter((f) => RANK[f.severity] <= RANK[flags.failOn!]).length;
        throw new ToolsearchError("lint_failed", `lint: ${plural(count, "finding")} at or above "${flags.failOn}" (--fail-on ${flags.failOn})`);
      }
    });
}

/** An unknown rule in --rule/--ignore is bad usage (exit 2), not a problem with the catalog. */
function checkSelectors(only: string[], ignore: string[]): void {
  try {
    selectRules(only, ignore);
  } catch (error) {
    if (error instanceof ToolsearchError) throw new UsageError(error.message);
    throw error;
  }
}

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Whether any finding is at least as severe as `threshold`. */
export function failing(findings: Finding[], threshold: Severity): boolean {
  return findings.some((f) => RANK[f.severity] <= RANK[threshold]);
}

function listRules(json?: boolean): void {
  if (json) return printJson(LINT_RULES.map(({ id, severity, rationale, fix }) => ({ id, severity, rationale, fix })));
  printLines(LINT_RULES.flatMap((r) => [`${r.id}  (${r.severity})`, `  why: ${r.rationale}`, `  fix: ${r.fix}`]));
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The human report: a summary line, findings grouped by tool, then counts per rule and the score. */
export function humanReport(file: string, report: LintReport): string[] {
  const { error, warning, info } = report.summary;
  const counts = `${plural(error, "error")}, ${plural(warning, "warning")}, ${info} info`;
  const head = `${file}: ${plural(report.tools, "tool")}, ${plural(report.findings.length, "finding")} (${counts}) — score ${report.score}/100`;
  if (report.findings.length === 0) return [head, "No findings."];
  const lines = [head, ""];
  const byTool = new Map<string, Finding[]>();
  for (const f of report.findings) byTool.set(f.tool, [...(byTool.get(f.tool) ?? []), f]);
  const ruleWidth = Math.max(...report.findings.map((f) => f.rule.length));
  for (const [tool, findings] of byTool) {
    lines.push(tool);
    for (const f of findings) lines.push(`  ${f.severity.padEnd(7)}  ${f.rule.padEnd(ruleWidth)}  ${f.message}`);
  }
  const rows = countByRule(report.findings).map((r) => [r.rule, r.severity, String(r.count)]);
  const clean = report.tools - byTool.size;
  lines.push("", ...table(["rule", "severity", "findings"], rows), "");
  lines.push(`${plural(byTool.size, "tool")} with findings, ${clean} clean. Score ${report.score}/100 (${counts}).`);
  lines.push("Run `toolsearch lint --list-rules` for why each rule matters and how to fix it.");
  return lines;
}
