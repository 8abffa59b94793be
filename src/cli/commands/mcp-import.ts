/**
 * `toolsearch mcp import --from claude-desktop|claude-code|cursor|vscode [--file PATH] [--out FILE] [--force]`: writes a
 * gateway configuration from a client's MCP servers and prints the one entry that registers the gateway there instead.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { type Command, Option } from "commander";
import { type Problem, ToolsearchError } from "../../errors.js";
import { type GatewayConfig, parseGatewayConfig } from "../../mcp/config.js";
import { type Client, CLIENTS, defaultClientFiles, importClientConfig, type ImportResult, type Launcher, registrationEntry } from "../../mcp/import.js";
import { toolsearchHome } from "../../store/open.js";

interface ImportFlags {
  from: Client;
  file?: string[];
  out?: string;
  force?: boolean;
}

export function registerMcpImport(mcp: Command): void {
  mcp
    .command("import")
    .description("write a gateway configuration from an MCP client's servers, and print the entry that registers the gateway in that client")
    .addOption(new Option("--from <client>", "the client whose configuration to read").choices([...CLIENTS]).makeOptionMandatory())
    .option("--file <path...>", "read this file instead of the client's default locations")
    .option("--out <file>", "where to write the gateway configuration (default: $TOOLSEARCH_HOME/mcp.json)")
    .option("--force", "replace --out when it exists")
    .action((flags: ImportFlags) => {
      const context = { home: homedir(), project: process.cwd(), platform: process.platform, env: process.env };
      const candidates = flags.file ?? defaultClientFiles(flags.from, context);
      const files = candidates.filter((file) => existsSync(file));
      if (!files.length) {
        throw new ToolsearchError("file_unreadable", `no ${flags.from} configuration found; looked at: ${candidates.join(", ")}. Pass --file PATH.`);
      }
      let result: ImportResult | undefined;
      for (const file of files) result = importClientConfig(flags.from, readFileSync(file, "utf8"), context, file, result);
      const out = resolve(flags.out ?? join(toolsearchHome(), "mcp.json"));
      if (existsSync(out) && !flags.force) throw new ToolsearchError("conflict", `${out} exists; pass --force to replace it, or --out another file`);
      const unset = checkLikeTheGateway(result!.config, out);
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, `${JSON.stringify(result!.config, null, 2)}\n`);
      process.stdout.write(report(flags.from, files, out, result!, unset));
    });
}

/**
 * Refuses now what the gateway would refuse at launch, except variables not set in this shell: the gateway may run
 * with another environment, so those are only reported.
 */
function checkLikeTheGateway(config: GatewayConfig, out: string): string[] {
  try {
    parseGatewayConfig(config, out);
    return [];
  } catch (error) {
    const problems: Problem[] | undefined = error instanceof ToolsearchError && error.problems.length ? error.problems : undefined;
    if (!problems || problems.some((p) => !p.rule?.endsWith(" variable"))) throw error;
    return problems.map((p) => p.message);
  }
}

/** `toolsearch` when installed; `node <absolute path>` when run from a build that is not on the PATH. */
function launcher(): Launcher {
  const script = process.argv[1] ?? "";
  return /[\\/]dist[\\/]cli[\\/]main\.js$/.test(script) ? { command: process.execPath, args: [resolve(script)] } : { command: "toolsearch", args: [] };
}

function report(client: Client, files: string[], out: string, result: ImportResult, unset: string[]): string {
  const names = Object.keys(result.config.mcpServers);
  const lines = [
    `Imported ${names.length} server${names.length === 1 ? "" : "s"} from ${files.join(", ")}: ${names.join(", ") || "(none)"}`,
    `Wrote ${out}`,
    ...result.notes.map((note) => `note: ${note}`),
  ];
  lines.push(...unset.map((line) => `not set here: ${line}`));
  if (result.variables.length) lines.push(`Set these in the gateway's environment (they were VS Code prompts): ${result.variables.join(", ")}`);
  lines.push("", `Replace those servers in the ${client} configuration with this one entry:`, registrationEntry(client, out, launcher()), "");
  return lines.join("\n");
}
