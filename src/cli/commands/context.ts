/** `toolsearch context --catalog FILE`: context size of the whole catalog against each meta-tool setup. */
import type { Command } from "commander";
import { CHARS_PER_TOKEN, contextReport } from "../../agents/context-size.js";
import { ToolIndex } from "../../indexes/tool-index.js";
import { printJson, printLines, table } from "../output.js";

export function registerContext(program: Command): void {
  program
    .command("context")
    .description("estimate the context cost of sending the whole catalog versus each meta-tool setup (search, directory, server)")
    .requiredOption("-c, --catalog <file>", "tool catalog: JSON, {tools:[…]}, JSONL or YAML")
    .option("--json", "machine-readable output")
    .action(async (flags: { catalog: string; json?: boolean }) => {
      const index = await ToolIndex.fromFile(flags.catalog);
      const report = contextReport(index);
      if (flags.json) return printJson(report);
      const saved = (tokens: number) => (report.full.tokens ? `${(100 * (1 - tokens / report.full.tokens)).toFixed(2)}%` : "-");
      const rows = [
        ["full catalog", String(report.full.chars), String(report.full.tokens), "-"],
        ...Object.entries(report.modes).map(([mode, size]) => [mode, String(size.chars), String(size.tokens), saved(size.tokens)]),
      ];
      printLines([
        `${report.tools} tools in ${flags.catalog}`,
        "",
        ...table(["setup", "chars", "~tokens", "saved"], rows),
        "",
        `Tokens are estimated at ${CHARS_PER_TOKEN} characters each. Deferred tools are not counted: the API keeps them out of context until found.`,
      ]);
    });
}
