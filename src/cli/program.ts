/** The `toolsearch` command: commander wiring; each command lives in its own file under commands/. */
import { Command, CommanderError } from "commander";
import { applyEnvironment, attachEnvironment } from "../ops/settings.js";
import { EXIT, reportError, UsageError } from "./output.js";

type Register = (program: Command) => void;

/**
 * Every command, in the order `--help` lists them, each with a loader of its module. A command line that names one
 * loads only that module: `toolsearch mcp` then never loads the service, the eval report or the OpenAPI importer,
 * which is most of a start-up's time (docs/benchmarks.md, "Launch time").
 */
const COMMANDS: [string, () => Promise<Register>][] = [
  ["search", async () => (await import("./commands/search.js")).registerSearch],
  ["describe", async () => (await import("./commands/describe.js")).registerDescribe],
  ["eval", async () => (await import("./commands/eval.js")).registerEval],
  ["lint", async () => (await import("./commands/lint.js")).registerLint],
  ["context", async () => (await import("./commands/context.js")).registerContext],
  ["docs", async () => (await import("./commands/docs.js")).registerDocs],
  ["mcp", async () => (await import("./commands/mcp.js")).registerMcp],
  ["import", async () => (await import("./commands/import.js")).registerImport],
  ["serve", async () => (await import("./commands/serve.js")).registerServe],
  ["keys", async () => (await import("./commands/keys.js")).registerKeys],
  ["audit", async () => (await import("./commands/audit.js")).registerAudit],
  ["usage", async () => (await import("./commands/usage.js")).registerUsage],
  ["explain", async () => (await import("./commands/explain.js")).registerExplain],
];

/**
 * Builds the program. With `argv`, only the command it names is registered when it names one (the program options
 * take no value, so the first word not starting with "-" is the command); otherwise, for help, a missing or
 * mistyped command, every command is. With `json`, commander's own error text is held back.
 */
export async function buildProgram(options: { json?: boolean; argv?: string[] } = {}): Promise<Command> {
  const program = new Command("toolsearch")
    .description("Search, then load: find tools and knowledge for LLM agents")
    .version("0.1.0")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  // Settings are copied to each command as it is created, so this must come before the commands.
  if (options.json) program.configureOutput({ writeErr: () => undefined });
  const named = options.argv?.find((arg) => !arg.startsWith("-"));
  const chosen = COMMANDS.filter(([name]) => name === named);
  const registers = await Promise.all((chosen.length ? chosen : COMMANDS).map(([, load]) => load()));
  for (const register of registers) register(program);
  for (const command of program.commands) command.exitOverride();
  // Settings from the environment (TOOLSEARCH_*, SPEC §18): named now, read just before the chosen command runs.
  attachEnvironment(program);
  program.hook("preAction", (_program, command) => applyEnvironment(command));
  return program;
}

/**
 * Runs the CLI and returns its exit code (SPEC §4: 0 ok, 1 user error, 2 usage). With `--json` anywhere on the line,
 * every error, usage errors included, is one line of JSON on stderr.
 */
export async function run(argv: string[]): Promise<number> {
  const json = argv.includes("--json");
  try {
    await (await buildProgram({ json, argv })).parseAsync(argv, { from: "user" });
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
