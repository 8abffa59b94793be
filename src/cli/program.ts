/** The `toolsearch` command: commander wiring; each command lives in its own file under commands/. */
import { Command, CommanderError } from "commander";
import { registerContext } from "./commands/context.js";
import { registerDescribe } from "./commands/describe.js";
import { registerDocs } from "./commands/docs.js";
import { registerEval } from "./commands/eval.js";
import { registerImport } from "./commands/import.js";
import { registerLint } from "./commands/lint.js";
import { registerMcp } from "./commands/mcp.js";
import { registerSearch } from "./commands/search.js";
import { registerKeys } from "./commands/keys.js";
import { registerServe } from "./commands/serve.js";
import { registerExplain } from "./commands/explain.js";
import { EXIT, reportError, UsageError } from "./output.js";

/** Builds the program with every command registered; with `json`, commander's own error text is held back. */
export function buildProgram(options: { json?: boolean } = {}): Command {
  const program = new Command("toolsearch")
    .description("Search, then load: find tools and knowledge for LLM agents")
    .version("0.1.0")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  // Settings are copied to each command as it is created, so this must come before the commands.
  if (options.json) program.configureOutput({ writeErr: () => undefined });
  registerSearch(program);
  registerDescribe(program);
  registerEval(program);
  registerLint(program);
  registerContext(program);
  registerDocs(program);
  registerMcp(program);
  registerImport(program);
  registerServe(program);
  registerKeys(program);
  registerExplain(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/**
 * Runs the CLI and returns its exit code (SPEC §4: 0 ok, 1 user error, 2 usage). With `--json` anywhere on the line,
 * every error, usage errors included, is one line of JSON on stderr.
 */
export async function run(argv: string[]): Promise<number> {
  const json = argv.includes("--json");
  try {
    await buildProgram({ json }).parseAsync(argv, { from: "user" });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") return EXIT.ok;
      if (error.cause instanceof UsageError) return reportError(error.cause, json);
      if (json) return reportError(new UsageError(error.message.replace(/^error: /, ""), "invalid_usage"), true);
      return EXIT.usage;
    }
    return reportError(error, json);
  }
}
