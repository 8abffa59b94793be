/**
 * The gateway's configuration, in the shape MCP clients (Claude Desktop, Claude Code, Cursor …) already use:
 *
 * ```json
 * { "mcpServers": {
 *     "fs":     { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {} },
 *     "remote": { "url": "http://localhost:3001/mcp", "headers": { "Authorization": "Bearer ${REMOTE_TOKEN}" },
 *                 "tools": { "allow": ["search_*"], "deny": ["*_admin"] }, "alwaysLoad": ["search_issues"] } } }
 * ```
 *
 * `${VAR}` / `${VAR:-default}` are checked here (a missing variable refuses the file) but filled in only when a server
 * starts (variables.ts), so the configuration, and the hash that identifies each block, never hold a secret value.
 *
 * A file that breaks a rule is refused whole; every problem names the server and the field.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { createHash } from "node:crypto";
import { dirname, isAbsolute, resolve } from "node:path";
import { readJsonFile } from "../catalog/read-records.js";
import { type Problem, ToolsearchError } from "../errors.js";
import { type OpenApiSourceConfig, parseOpenApiSources } from "../openapi/config.js";
import { ASSERTION_ALGORITHMS } from "../auth/client-assertion.js";
import type { UpstreamOAuthConfig } from "../auth/upstream-oauth.js";
import type { ToolSelection } from "./tool-filter.js";
import { describeMissing, resolveServerConfig } from "./variables.js";
import { SCREEN_MODES, type ScreenMode } from "../trust/screen.js";

/** What every server block may add, whatever its transport. */
export interface ServerControls {
  /** Globs on the server's own tool names: which tools the gateway indexes and routes (tool-filter.ts). */
  tools?: ToolSelection;
  /** Tool names (the server's own) listed directly in the gateway's `tools/list`, next to its meta-tools. */
  alwaysLoad?: string[];
  /** Globs on the server's resource URIs and URI templates: which of them the gateway lists and routes. */
  resources?: ToolSelection;
  /** Globs on the server's own prompt names: which prompts the gateway lists and routes. */
  prompts?: ToolSelection;
  /** `"new-tools"`: tools the server adds after it was first seen are served at once, not held for review. */
  trust?: "new-tools";
  /** What the gateway does with this server's results that hold text aimed at the model (overrides `--screen-results`). */
  screenResults?: ScreenMode;
}

/** An upstream started as a child process and spoken to over stdio. */
export interface StdioServerConfig extends ServerControls {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  /** Working directory of the child (default: the gateway's). */
  cwd?: string;
}

/** An upstream reached over Streamable HTTP. */
export interface HttpServerConfig extends ServerControls {
  url: string;
  headers?: Record<string, string>;
  /** OAuth of the MCP authorization specification (SPEC §15); a server that answers 401 gets it even without this. */
  oauth?: UpstreamOAuthConfig;
}

export type ServerConfig = StdioServerConfig | HttpServerConfig;

/** The parsed configuration: upstream servers by name. */
export interface GatewayConfig {
  mcpServers: Record<string, ServerConfig>;
  /** REST APIs served as tools from their OpenAPI documents (SPEC §13), by name. */
  openapi?: Record<string, OpenApiSourceConfig>;
}

export function isStdioConfig(config: ServerConfig): config is StdioServerConfig {
  return "command" in config;
}

const stringMap = { type: "object", additionalProperties: { type: "string" } };
const globList = { type: "array", items: { type: "string", minLength: 1 } };
const selection = { type: "object", properties: { allow: globList, deny: globList }, additionalProperties: false };
const controls = {
  tools: selection,
  resources: selection,
  prompts: selection,
  alwaysLoad: { type: "array", items: { type: "string", minLength: 1 } },
  trust: { enum: ["new-tools"] },
  screenResults: { enum: [...SCREEN_MODES] },
};

const stdioSchema = {
  type: "object",
  properties: {
    command: { type: "string", minLength: 1 },
    args: { type: "array", items: { type: "string" } },
    env: stringMap,
    cwd: { type: "string" },
    ...controls,
    // Fields some clients write that we accept and ignore.
    type: { enum: ["stdio"] },
    disabled: { type: "boolean" },
  },
  required: ["command"],
  additionalProperties: false,
};

const httpSchema = {
  type: "object",
  properties: {
    url: { type: "string", minLength: 1 },
    headers: stringMap,
    oauth: {
      type: "object",
      properties: {
        clientId: { type: "string", minLength: 1 },
        clientSecret: { type: "string" },
        privateKey: { type: "string", minLength: 1 },
        privateKeyFile: { type: "string", minLength: 1 },
        signingAlgorithm: { enum: [...ASSERTION_ALGORITHMS] },
        scopes: { type: "array", items: { type: "string", minLength: 1 } },
        redirectPort: { type: "integer", minimum: 1, maximum: 65535 },
        grant: { enum: ["authorization_code", "client_credentials"] },
        clientMetadataUrl: { type: "string", pattern: "^https://[^/]+/.+" },
        refreshAheadSeconds: { type: "integer", minimum: 0 },
      },
      additionalProperties: false,
      // A machine account authenticates itself: without a client it has nothing to present.
      if: { properties: { grant: { const: "client_credentials" } }, required: ["grant"] },
      then: { required: ["clientId"], anyOf: [{ required: ["clientSecret"] }, { required: ["privateKey"] }, { required: ["privateKeyFile"] }] },
      // One way to authenticate the client, so nobody wonders which of two is used.
      not: { anyOf: [{ required: ["clientSecret", "privateKey"] }, { required: ["clientSecret", "privateKeyFile"] }, { required: ["privateKey", "privateKeyFile"] }] },
    },
    ...controls,
    type: { enum: ["http", "streamable-http", "streamableHttp"] },
    disabled: { type: "boolean" },
  },
  required: ["url"],
  additionalProperties: false,
};

// These schemas are ours and fixed, so ajv need not check them against the meta-schema (which it would compile first).
const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
// Each is compiled when first needed: compiling costs more than the rest of reading a configuration, and most
// configurations have one kind of server only.
type Validate = ((data: unknown) => boolean) & Pick<ValidateFunction, "errors">;
let validateStdio: Validate | undefined;
let validateHttp: Validate | undefined;

/** `/args/0` → `args[0]`: the field as a user would write it. */
function fieldOf(error: ErrorObject): string {
  const parts = error.instancePath.split("/").filter(Boolean);
  if (error.keyword === "required") parts.push(String(error.params.missingProperty));
  if (error.keyword === "additionalProperties") parts.push(String(error.params.additionalProperty));
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), "");
}

function messageOf(error: ErrorObject): string {
  if (error.keyword === "required") return "is required";
  if (error.keyword === "additionalProperties") return "is not a known field (stdio servers take command, args, env, cwd; HTTP servers take url, headers, oauth; both take tools, alwaysLoad, resources, prompts, trust and screenResults)";
  if (error.keyword === "enum") return `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
  if (error.keyword === "minLength") return "must not be empty";
  // The oauth block's client authentication: the schema's anyOf / not, in words.
  if (error.keyword === "anyOf") return "needs clientSecret, privateKey or privateKeyFile with \"grant\": \"client_credentials\"";
  if (error.keyword === "not") return "takes one of clientSecret, privateKey and privateKeyFile, not several";
  return error.message ?? "is invalid";
}

function serverProblems(file: string | undefined, name: string, value: unknown, environment: Environment): Problem[] {
  const at = (field: string, message: string): Problem => ({ file, name, rule: `${field} ${message}`, message: `server ${JSON.stringify(name)}: ${field ? `field "${field}" ` : ""}${message}` });
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [at("", "must be an object with either \"command\" (stdio) or \"url\" (Streamable HTTP)")];
  const record = value as Record<string, unknown>;
  if ("command" in record && "url" in record) return [at("", "has both \"command\" and \"url\": give one (command for stdio, url for Streamable HTTP)")];
  if (!("command" in record) && !("url" in record)) return [at("", "needs either \"command\" (stdio) or \"url\" (Streamable HTTP)")];
  const validate = "command" in record ? (validateStdio ??= ajv.compile(stdioSchema)) : (validateHttp ??= ajv.compile(httpSchema));
  const badUrl = () => at("url", "must be an absolute URL such as http://localhost:3001/mcp");
  if (!validate(record)) {
    // An anyOf's branches and an if's "must match then" only repeat what the anyOf error says.
    const errors = (validate.errors ?? []).filter((e) => e.keyword !== "if" && !e.schemaPath.includes("/anyOf/"));
    const problems = errors.map((e) => at(fieldOf(e), messageOf(e)));
    if (typeof record.url === "string" && !record.url.includes("${") && !URL.canParse(record.url)) problems.push(badUrl());
    return problems;
  }
  // Variables are checked now, so a missing one refuses the file at launch rather than when the server is first called.
  const resolved = resolveServerConfig(record as unknown as ServerConfig, environment);
  const problems = resolved.missing.map((m): Problem => ({ file, name, rule: `${m.field} variable`, message: describeMissing(name, m) }));
  // The resolved URL is checked but never shown: it may carry a token.
  if ("url" in resolved.config && !resolved.missing.length && !URL.canParse(resolved.config.url)) problems.push(badUrl());
  return problems;
}

type Environment = Record<string, string | undefined>;

/**
 * Checks a parsed configuration object; returns it typed, or throws `config_invalid` listing every problem.
 * Servers with `"disabled": true` are dropped. `environment` (default: the process's) is where `${VAR}` must be set.
 */
export function parseGatewayConfig(value: unknown, file?: string, environment: Environment = process.env): GatewayConfig {
  const where = file ?? "configuration";
  const record = value as { mcpServers?: unknown; openapi?: unknown } | null;
  // A configuration may hold only OpenAPI documents.
  const servers = record?.mcpServers === undefined && record?.openapi !== undefined ? {} : record?.mcpServers;
  if (typeof value !== "object" || value === null || typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    throw new ToolsearchError("config_invalid", `${where}: expected an object {"mcpServers": {"<name>": {"command": …} | {"url": …}}}`);
  }
  const problems: Problem[] = [];
  for (const [name, server] of Object.entries(servers)) {
    if (!/^[a-zA-Z0-9_.-]{1,64}$/.test(name)) {
      problems.push({ file, name, message: `server ${JSON.stringify(name)}: the name must be 1–64 letters, digits, "_", "-" or "."` });
    }
    problems.push(...serverProblems(file, name, server, environment));
  }
  const apis = parseOpenApiSources(record?.openapi, file);
  problems.push(...apis.problems);
  for (const name of Object.keys(apis.sources)) {
    if (Object.hasOwn(servers, name)) problems.push({ file, name, message: `openapi ${JSON.stringify(name)}: the name is also an MCP server's; tools are named <name>__<tool>, so names must differ` });
  }
  if (problems.length) throw configRefused(where, problems);
  const enabled = Object.entries(servers as Record<string, ServerConfig & { disabled?: boolean }>).filter(([, s]) => !s.disabled);
  const mcpServers: Record<string, ServerConfig> = {};
  for (const [name, server] of enabled) {
    const { disabled: _disabled, type: _type, ...rest } = server as ServerConfig & { disabled?: boolean; type?: string };
    mcpServers[name] = rest;
  }
  return Object.keys(apis.sources).length ? { mcpServers, openapi: apis.sources } : { mcpServers };
}

/** The `config_invalid` error for a configuration's problems, one line each. */
export function configRefused(where: string, problems: Problem[]): ToolsearchError {
  const lines = problems.map((p) => `  - ${p.message}`);
  return new ToolsearchError("config_invalid", [`${where}: configuration refused (${problems.length} problem${problems.length === 1 ? "" : "s"}):`, ...lines].join("\n"), { problems });
}

/**
 * A hash of what decides a server's tool list: the block as written (variables unfilled), without `tools`,
 * `alwaysLoad` and `screenResults`, which only filter what the gateway shows. Keys are sorted, so reformatting the file changes nothing.
 */
export function configHash(config: ServerConfig): string {
  const { tools: _tools, alwaysLoad: _alwaysLoad, screenResults: _screen, ...identity } = config;
  return createHash("sha256").update(canonicalJson(identity)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Reads and checks a configuration file (JSON). A relative `oauth.privateKeyFile` is taken from the file's directory. */
export function loadGatewayConfig(path: string): GatewayConfig {
  return withKeyFilesFrom(dirname(resolve(path)), parseGatewayConfig(readJsonFile(path), path));
}

/**
 * Makes relative `oauth.privateKeyFile` paths absolute against `dir`: the key sits beside the configuration, wherever
 * the gateway is started from. A path that starts with `${VAR}` is left as the variable will give it.
 */
function withKeyFilesFrom(dir: string, config: GatewayConfig): GatewayConfig {
  const relative = (file: string | undefined): file is string => file !== undefined && !file.startsWith("${") && !isAbsolute(file);
  const mcpServers = Object.fromEntries(Object.entries(config.mcpServers).map(([name, server]) =>
    [name, !isStdioConfig(server) && relative(server.oauth?.privateKeyFile) ? { ...server, oauth: { ...server.oauth, privateKeyFile: resolve(dir, server.oauth.privateKeyFile) } } : server]));
  return { ...config, mcpServers };
}
