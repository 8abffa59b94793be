/** `toolsearch describe NAME --catalog FILE` */
import type { Command } from "commander";
import { ToolIndex } from "../../indexes/tool-index.js";
import { printJson } from "../output.js";

export function registerDescribe(program: Command): void {
  program
    .command("describe")
    .description("print one tool's full definition (Anthropic shape, as given)")
    .argument("<name>", "tool name")
    .requiredOption("-c, --catalog <file>", "tool catalog")
    .option("--json", "machine-readable output (the definition itself)")
    .action(async (name: string, flags: { catalog: string; json?: boolean }) => {
      const index = await ToolIndex.fromFile(flags.catalog);
      const tool = index.require(name);
      // The definition is JSON either way; --json only promises nothing else is printed.
      printJson(index.describe(tool.name));
    });
}
