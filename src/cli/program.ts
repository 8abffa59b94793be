/** The `toolsearch` command: commander wiring; each command lives in its own file under commands/. */
import { Command, CommanderError } from "commander";
import { registerContext } from "./commands/context.js";
import { registerDescribe } from "./commands/describe.js";
import { registerDocs } from "./commands/docs.js";
import { registerEval } from "./commands/eval.js";
import { registerLint } from "./commands/lint.js";
import { registerMcp } from "./commands/mcp.js";
import { registerSearch } from "./commands/search.js";
import { registerKeys } from "./commands/keys.js";
import { registerServe } from "./commands/serve.js";
import { EXIT, reportError, UsageError } from "./output.js";

/** Builds the program with every command registered. */
export function buildProgram(): Command {
  const program = new Command("toolsearch")
    .description("Search, then load: find tools and knowledge for LLM agents")
    .version("0.1.0")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  registerSearch(program);
  registerDescribe(program);
  registerEval(program);
  registerLint(program);
  registerContext(program);
  registerDocs(program);
  registerMcp(program);
  registerServe(program);
  registerKeys(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/** Runs the CLI and returns its exit code (SPEC §4: 0 ok, 1 user error, 2 usage). */
export async function run(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: "user" });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") return EXIT.ok;
      if (error.cause instanceof UsageError) return reportError(error.cause);
      return EXIT.usage;
    }
    return reportError(error);
  }
}
