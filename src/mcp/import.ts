/**
 * `toolsearch mcp import`: reads the MCP servers an MCP client is configured with and turns them into a gateway
 * configuration, so they run behind one `toolsearch mcp` entry instead. Each client's own shape is read:
 *
 * - Claude Desktop: `{"mcpServers": {name: {command, args, env}}}` (claude_desktop_config.json).
 * - Claude Code: `~/.claude.json` holds user servers in `mcpServers` and per-project ones in
 *   `projects[<dir>].mcpServers`; a project's `.mcp.json` holds `mcpServers`. Entries carry `type` (stdio, http, sse)
 *   and already use `${VAR}` / `${VAR:-default}`, which the gateway reads the same way.
 * - Cursor: `mcp.json` with `mcpServers`; `${env:NAME}`, `${userHome}` and `${workspaceFolder}` are its variables.
 * - VS Code: `mcp.json` with `servers` (and `inputs`), or `settings.json` with `"mcp": {"servers": …}`; entries carry
 *   `type`, and `${env:NAME}`, `${input:id}`, `${userHome}`, `${workspaceFolder}` are its variables. Files may hold
 *   comments and trailing commas.
 *
 * Nothing is guessed silently: every server left out or changed comes back as a note saying why.
 *
 * @example
 * ```ts
 * const result = importClientConfig("cursor", text, { home: "/home/me", project: "/work/app" });
 * result.config.mcpServers; // ready for parseGatewayConfig
 * ```
 */
import { sep } from "node:path";
import { ToolsearchError } from "../errors.js";
import type { GatewayConfig, ServerConfig } from "./config.js";

export const CLIENTS = ["claude-desktop", "claude-code", "cursor", "vscode"] as const;
export type Client = (typeof CLIENTS)[number];

/** Where relative variables point when a client's configuration is read. */
export interface ImportContext {
  /** The user's home directory (`${userHome}`). */
  home: string;
  /** The project directory (`${workspaceFolder}`, and the `projects` key of `~/.claude.json`). */
  project: string;
}

/** A converted configuration and what happened on the way. */
export interface ImportResult {
  config: GatewayConfig;
  /** One sentence per server skipped or changed. */
  notes: string[];
  /** Environment variables the gateway's environment must provide (from VS Code `${input:…}` prompts). */
  variables: string[];
}

type RawServer = Record<string, unknown>;

/** Parses JSON that may hold `//` and `/* *\/` comments and trailing commas (VS Code writes such files). */
export function parseJsonc(text: string, file: string): unknown {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      out += text.slice(start, i + 1);
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += c;
  }
  try {
    return JSON.parse(out.replace(/,(\s*[}\]])/g, "$1"));
  } catch (error) {
    throw new ToolsearchError("file_parse", `${file}: not valid JSON (${(error as Error).message})`);
  }
}

/** The server map of one client's configuration file, in order of precedence (later entries win). */
function serverMaps(client: Client, value: unknown, context: ImportContext, file: string): Record<string, RawServer>[] {
  const root = (value ?? {}) as Record<string, unknown>;
  const map = (v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, RawServer>) : undefined);
  const maps: (Record<string, RawServer> | undefined)[] = [];
  if (client === "vscode") maps.push(map(root.servers), map(map(root.mcp)?.servers));
  else maps.push(map(root.mcpServers));
  // Claude Code's ~/.claude.json: the user's servers, then the current project's own (which win).
  if (client === "claude-code") maps.push(map(map(map(root.projects)?.[context.project])?.mcpServers));
  const found = maps.filter((m): m is Record<string, RawServer> => m !== undefined);
  if (!found.length) {
    const expected = client === "vscode" ? `{"servers": {…}} (or settings.json with {"mcp": {"servers": {…}}})` : `{"mcpServers": {…}}`;
    throw new ToolsearchError("config_invalid", `${file}: no MCP servers found: a ${client} configuration has ${expected}`);
  }
  return found;
}

/**
 * Converts one client's configuration text into a gateway configuration. Several files of one client (user and
 * project) can be merged by calling this per file and passing the earlier result as `into`.
 */
export function importClientConfig(client: Client, text: string, context: ImportContext, file = "configuration", into?: ImportResult): ImportResult {
  const result: ImportResult = into ?? { config: { mcpServers: {} }, notes: [], variables: [] };
  for (const map of serverMaps(client, parseJsonc(text, file), context, file)) {
    for (const [rawName, raw] of Object.entries(map)) {
      const name = gatewayName(rawName);
      if (name !== rawName) result.notes.push(`"${rawName}" is named "${name}" (server names are letters, digits, "_", "-" and ".")`);
      const server = convertServer(client, rawName, raw, context, result);
      if (server) result.config.mcpServers[name] = server;
    }
  }
  result.variables = [...new Set(result.variables)].sort();
  return result;
}

function gatewayName(name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9_.-]+/g, "-").slice(0, 64);
  return clean || "server";
}

/** One client entry as a gateway server block, or undefined (with a note) when it cannot or must not be imported. */
function convertServer(client: Client, name: string, raw: RawServer, context: ImportContext, result: ImportResult): ServerConfig | undefined {
  const skip = (why: string) => void result.notes.push(`skipped "${name}": ${why}`);
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return skip("not an object"), undefined;
  if (raw.disabled === true) return skip("it is disabled in the client"), undefined;
  if (raw.type === "sse") return skip("it uses the SSE transport, which the gateway does not speak (Streamable HTTP and stdio only)"), undefined;
  const fill = (value: string) => translateVariables(client, value, context, result);
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string").map(fill) : undefined);
  const stringMap = (value: unknown) => value && typeof value === "object" && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([, v]) => typeof v === "string").map(([k, v]) => [k, fill(v as string)]))
    : undefined;
  if (raw.envFile !== undefined) result.notes.push(`"${name}": its envFile is not read by the gateway; put those variables in "env" or in the gateway's environment`);
  if (typeof raw.command === "string" && raw.command) {
    const args = strings(raw.args);
    if (isGateway(raw.command, args ?? [])) return skip("it is toolsearch itself (the gateway never runs itself as an upstream)"), undefined;
    return compact({ command: fill(raw.command), args, env: stringMap(raw.env), cwd: typeof raw.cwd === "string" ? fill(raw.cwd) : undefined });
  }
  if (typeof raw.url === "string" && raw.url) return compact({ url: fill(raw.url), headers: stringMap(raw.headers) });
  return skip('it has neither "command" nor "url"'), undefined;
}

/** Whether an entry starts toolsearch's own gateway (`toolsearch mcp …`, `npx toolsearch mcp`, `node …/toolsearch/… mcp`). */
export function isGateway(command: string, args: string[]): boolean {
  const words = [command, ...args];
  return words.includes("mcp") && words.some((word) => /(^|[\\/@])toolsearch(@[^\\/]*)?([\\/]|\.(c?m?js|cmd|exe)$|$)/i.test(word));
}

/** Rewrites a client's variable syntax into the gateway's `${VAR}`. */
function translateVariables(client: Client, value: string, context: ImportContext, result: ImportResult): string {
  if (client === "claude-desktop" || client === "claude-code") return value;
  return value.replace(/\$\{([^}:]+)(?::([^}]*))?\}/g, (whole, kind: string, argument: string | undefined) => {
    if (kind === "env" && argument) return `\${${argument}}`;
    if (kind === "userHome" && argument === undefined) return context.home;
    if (kind === "workspaceFolder" && argument === undefined) return context.project;
    if ((kind === "pathSeparator" || kind === "/") && argument === undefined) return sep;
    if (kind === "input" && argument && client === "vscode") {
      const variable = argument.replace(/[^a-zA-Z0-9]+/g, "_").toUpperCase();
      result.variables.push(variable);
      return `\${${variable}}`;
    }
    return whole;
  });
}

function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && !(typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0))) as T;
}

/** How a client starts toolsearch: `toolsearch` on the PATH, or `node /path/to/dist/cli/main.js`. */
export interface Launcher {
  command: string;
  args: string[];
}

/**
 * The entry that registers the gateway in `client`, to put in place of the imported servers.
 *
 * @example
 * ```ts
 * registrationEntry("cursor", "/home/me/.toolsearch/mcp.json"); // {"mcpServers": {"toolsearch": {…}}}
 * ```
 */
export function registrationEntry(client: Client, gatewayConfigPath: string, launcher: Launcher = { command: "toolsearch", args: [] }): string {
  const launch = { command: launcher.command, args: [...launcher.args, "mcp", "--config", gatewayConfigPath] };
  if (client === "vscode") return JSON.stringify({ servers: { toolsearch: { type: "stdio", ...launch } } }, null, 2);
  const json = JSON.stringify({ mcpServers: { toolsearch: launch } }, null, 2);
  if (client === "claude-code") return `claude mcp add --scope user toolsearch -- ${[launch.command, ...launch.args].map(quoteForShell).join(" ")}\n\nor, in a project's .mcp.json:\n${json}`;
  return json;
}

function quoteForShell(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

/** Where a client keeps its configuration on this machine. */
export interface PlatformContext extends ImportContext {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
}

/**
 * The files a client reads on `platform`, lowest precedence first (a later file's server replaces an earlier one of
 * the same name): the user's file, then the project's.
 */
export function defaultClientFiles(client: Client, where: PlatformContext): string[] {
  const { platform, home, project, env } = where;
  const join = (...parts: string[]) => parts.join(platform === "win32" ? "\\" : "/");
  const appData = env.APPDATA ?? join(home, "AppData", "Roaming");
  const userConfigDir = platform === "win32" ? appData : platform === "darwin" ? join(home, "Library", "Application Support") : (env.XDG_CONFIG_HOME ?? join(home, ".config"));
  switch (client) {
    case "claude-desktop":
      return [join(userConfigDir, "Claude", "claude_desktop_config.json")];
    case "claude-code":
      return [join(project, ".mcp.json"), join(home, ".claude.json")];
    case "cursor":
      return [join(home, ".cursor", "mcp.json"), join(project, ".cursor", "mcp.json")];
    case "vscode":
      return [join(userConfigDir, "Code", "User", "mcp.json"), join(project, ".vscode", "mcp.json")];
  }
}
