/**
 * Lint benchmark: `lintFile` in-process on the shared data sets, with the time of a `ToolIndex` build of the same
 * catalog beside it (both analyze every tool's text once, so the ratio is what the rules and the look-alike pass add).
 * Wall and CPU time are both reported: CPU time is the steadier figure on a busy machine.
 *
 *   npm run bench:lint               # table
 *   npm run bench:lint -- --json     # one JSON object
 *
 * Options: --data DIR (default ../shared/data), --sets a,b,c (default stabletoolbench,metatool,smithery,scale).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { table } from "../src/cli/output.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import { countByRule, lintFile } from "../src/lint/runner.js";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    sets: { type: "string", default: "stabletoolbench,metatool,smithery,scale" },
    json: { type: "boolean", default: false },
  },
});

function timed<T>(work: () => T): { value: T; wallMs: number; cpuMs: number } {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const value = work();
  const used = process.cpuUsage(cpu);
  return { value, wallMs: performance.now() - start, cpuMs: (used.user + used.system) / 1000 };
}

const results: Record<string, unknown> = {};
for (const set of values.sets.split(",")) {
  const file = join(values.data, set, "catalog.json");
  if (!existsSync(file)) continue;
  const lint = timed(() => lintFile(file));
  const build = timed(() => ToolIndex.fromFile(file));
  await build.value;
  const byRule = Object.fromEntries(countByRule(lint.value.findings).map((r) => [r.rule, r.count]));
  results[set] = {
    tools: lint.value.tools,
    score: lint.value.score,
    summary: lint.value.summary,
    lint_wall_ms: Math.round(lint.wallMs),
    lint_cpu_ms: Math.round(lint.cpuMs),
    index_build_cpu_ms: Math.round(build.cpuMs),
    lint_vs_index_build: Number((lint.cpuMs / build.cpuMs).toFixed(2)),
    by_rule: byRule,
  };
}

if (values.json) {
  process.stdout.write(`${JSON.stringify({ bench: "lint", sets: results })}\n`);
} else {
  const rows = Object.entries(results).map(([set, r]) => {
    const x = r as { tools: number; score: number; summary: Record<string, number>; lint_wall_ms: number; lint_cpu_ms: number; index_build_cpu_ms: number; lint_vs_index_build: number };
    return [set, String(x.tools), String(x.score), `${x.summary.error}/${x.summary.warning}/${x.summary.info}`, String(x.lint_wall_ms), String(x.lint_cpu_ms), String(x.index_build_cpu_ms), `${x.lint_vs_index_build}×`];
  });
  process.stdout.write(`${table(["set", "tools", "score", "err/warn/info", "lint wall ms", "lint cpu ms", "index build cpu ms", "lint/build"], rows).join("\n")}\n`);
}
