/**
 * `toolsearch mcp login NAME [--config F] [--store S] [--no-browser]`, `mcp logout NAME` and
 * `mcp call NAME [TOOL] [--args JSON]`: OAuth for a remote upstream (SPEC §15) and a one-off call through the same
 * client the gateway uses. Login prints the authorization URL (and opens a browser where it can), then takes the
 * redirect on a loopback port; with `--no-browser` it follows the redirects itself, which completes when the
 * authorization server consents without a person (machine setups, the conformance suite).
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Command } from "commander";
import { checkClientKeys } from "../../auth/key-check.js";
import { oauthOwner, StoredOAuthProvider, upstreamAuth } from "../../auth/upstream-oauth.js";
import { ToolsearchError } from "../../errors.js";
import { type GatewayConfig, type HttpServerConfig, isStdioConfig, loadGatewayConfig, parseGatewayConfig, type ServerConfig } from "../../mcp/config.js";
import { GATEWAY_OWNER } from "../../mcp/manifests.js";
import { Upstream } from "../../mcp/upstream.js";
import { resolveServerConfig } from "../../mcp/variables.js";
import { defaultStorePath, openStore, toolsearchHome } from "../../store/open.js";
import type { Store } from "../../store/types.js";
import { printJson, printLines, UsageError } from "../output.js";

interface AuthFlags {
  config?: string;
  /** A server of the service's `mcp` collection of this name (its configuration is in the store). */
  collection?: string;
  store?: string;
  browser: boolean;
  args?: string;
  json?: boolean;
}

/** Longest wait for the browser's redirect. */
const LOGIN_TIMEOUT_MS = 5 * 60_000;
const MAX_REDIRECTS = 10;

export function registerMcpAuth(mcp: Command): void {
  const common = (command: Command) =>
    command
      .option("--config <file>", "the gateway configuration (default: $TOOLSEARCH_HOME/mcp.json)")
      .option("--store <path|url>", "where tokens are kept, sealed (default: $TOOLSEARCH_DEFAULT_STORE, else $TOOLSEARCH_HOME/store.sqlite)")
      .option("--collection <name>", "a server of the service's mcp collection NAME (configuration and tokens in --store)");
  common(mcp.command("login <name>").description("authorize the gateway at a remote server that requires OAuth (tokens are kept in the store, encrypted)"))
    .option("--no-browser", "do not open a browser; follow the authorization redirects directly (for servers that consent without a person)")
    .action((name: string, _flags: AuthFlags, command: Command) => {
      const flags = allFlags(command);
      return withServer(name, flags, (server, store, owner) => login(name, server, store, owner, flags));
    });
  common(mcp.command("logout <name>").description("forget a remote server's OAuth tokens and client registration"))
    .action((name: string, _flags: AuthFlags, command: Command) =>
      withServer(name, allFlags(command), async (_server, store, owner) => {
        await new StoredOAuthProvider(store, oauthOwner(owner, name)).forget();
        printLines([`logged out of ${name}: its tokens are forgotten`]);
      }));
  common(mcp.command("call <name> [tool]").description("call one tool of an upstream server (without a tool: list its tools), as the gateway would"))
    .option("--args <json>", "the tool's arguments as a JSON object", "{}")
    .option("--json", "print the MCP result as JSON")
    .action((name: string, tool: string | undefined, _flags: AuthFlags, command: Command) => {
      const flags = allFlags(command);
      return withServer(name, flags, (server, store, owner) => call(name, server, store, owner, tool, flags), true);
    });
}

/** `--config`, `--store` and `--json` are also options of `toolsearch mcp`, which takes them before the subcommand sees them. */
function allFlags(command: Command): AuthFlags {
  return command.optsWithGlobals<AuthFlags>();
}

async function withServer(name: string, flags: AuthFlags, body: (server: ServerConfig, store: Store, owner: string) => Promise<void>, anyTransport = false): Promise<void> {
  if (flags.collection !== undefined && flags.config !== undefined) throw new UsageError("give --config (a gateway's file) or --collection (a service's mcp collection), not both");
  const store = await openStore(flags.store ?? defaultStorePath());
  try {
    const { config, where } = await serversOf(flags, store);
    const written = config.mcpServers[name];
    if (!written) throw new ToolsearchError("config_invalid", `${where} has no server ${JSON.stringify(name)} (it has ${Object.keys(config.mcpServers).join(", ") || "none"})`);
    if (!anyTransport && isStdioConfig(written)) throw new ToolsearchError("config_invalid", `server ${JSON.stringify(name)} in ${where} is a stdio server; only remote (url) servers use OAuth`);
    await checkClientKeys({ mcpServers: { [name]: written } }, where);
    const { config: server } = resolveServerConfig(written, process.env);
    // Loaded only here: the service's modules must not slow the gateway's launch, which imports this file.
    const owner = flags.collection !== undefined ? (await import("../../server/collections.js")).manifestOwner(flags.collection) : GATEWAY_OWNER;
    await body(server, store, owner);
  } finally {
    await store.close();
  }
}

/** The servers of the gateway's file, or of a service's `mcp` collection. */
async function serversOf(flags: AuthFlags, store: Store): Promise<{ config: GatewayConfig; where: string }> {
  if (flags.collection === undefined) {
    const file = flags.config ?? join(toolsearchHome(), "mcp.json");
    return { config: loadGatewayConfig(file), where: file };
  }
  const record = await store.getCollection(flags.collection);
  if (!record || record.kind !== "mcp") throw new ToolsearchError("unknown_collection", `the store ${store.location} has no mcp collection ${JSON.stringify(flags.collection)}`);
  return { config: parseGatewayConfig(record.config, `collection ${flags.collection}`), where: `collection ${flags.collection}` };
}

/** Authorization code with PKCE through the SDK's transport: its 401 handling discovers, registers and builds the URL. */
async function login(name: string, server: ServerConfig, store: Store, owner: string, flags: AuthFlags): Promise<void> {
  const config = server as HttpServerConfig;
  const provider = new StoredOAuthProvider(store, oauthOwner(owner, name), config.oauth);
  const sdk = await import("../../mcp/sdk-client.js");
  const pendingScope = await provider.pendingScope();
  await provider.invalidateCredentials("tokens");
  const connect = async () => {
    const transport = new sdk.StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers ?? {} }, authProvider: provider });
    const client = new sdk.Client({ name: "toolsearch-login", version: "0.1.0" });
    await client.connect(transport);
    const { tools } = await client.listTools();
    await client.close();
    return tools.length;
  };
  if (provider.machine) {
    printLines([`logged in to ${name} with client credentials: ${await connect()} tools`]);
    return;
  }
  const callback = await listenForCallback(config.oauth?.redirectPort ?? 0);
  try {
    await provider.beginLogin(callback.url);
    const transport = new sdk.StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers ?? {} }, authProvider: provider });
    const client = new sdk.Client({ name: "toolsearch-login", version: "0.1.0" });
    try {
      await client.connect(transport);
      await client.close();
      // Connecting needs no token here, but a call asked for one (its challenge is remembered): authorize for that.
      const asked = pendingScope !== undefined || (await provider.discoveryState()) !== undefined;
      if (!asked || (await sdk.auth(provider, { serverUrl: config.url, scope: pendingScope })) === "AUTHORIZED") {
        printLines([asked ? `logged in to ${name}` : `${name} did not ask for a login: nothing to do`]);
        return;
      }
    } catch (error) {
      if (!(error instanceof sdk.UnauthorizedError) || !provider.authorizationUrl) throw error;
    }
    if (!provider.authorizationUrl) throw new ToolsearchError("unauthorized", `${name}: the authorization server gave no authorization URL`);
    const url = withScope(provider.authorizationUrl, pendingScope);
    callback.expectState(url.searchParams.get("state") ?? undefined);
    process.stderr.write(`Authorize toolsearch at ${name}:\n${url}\n`);
    if (flags.browser) openBrowser(url.toString());
    else await followRedirects(url, callback.url);
    const code = await callback.code;
    await transport.finishAuth(code);
    printLines([`logged in to ${name}: ${await connect()} tools`]);
  } finally {
    await callback.close();
  }
}

/** A scope step-up asked for by a call is added to what the login asks for. */
function withScope(url: URL, extra: string | undefined): URL {
  if (!extra) return url;
  const scopes = new Set([...(url.searchParams.get("scope") ?? "").split(" "), ...extra.split(" ")].filter(Boolean));
  const copy = new URL(url);
  copy.searchParams.set("scope", [...scopes].join(" "));
  return copy;
}

interface Callback {
  url: string;
  code: Promise<string>;
  expectState(state: string | undefined): void;
  close(): Promise<void>;
}

/** A loopback server for the one redirect of a login; the code is accepted only with the state the URL carried. */
async function listenForCallback(port: number): Promise<Callback> {
  let expected: string | undefined;
  let settle!: { resolve: (code: string) => void; reject: (error: Error) => void };
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") return void res.writeHead(404).end();
    const state = url.searchParams.get("state") ?? undefined;
    const error = url.searchParams.get("error");
    const given = url.searchParams.get("code");
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    if (state !== expected) return void res.end("This redirect does not belong to the login in progress.");
    res.end(error ? "Authorization refused; see the terminal." : "toolsearch is authorized. You can close this window.");
    if (error) settle.reject(new ToolsearchError("unauthorized", `the authorization server refused: ${error}${url.searchParams.get("error_description") ? ` (${url.searchParams.get("error_description")})` : ""}`));
    else if (given) settle.resolve(given);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => reject(new ToolsearchError("invalid_option", `cannot listen on 127.0.0.1:${port} for the login redirect: ${error.code ?? error.message}`)));
    server.listen(port, "127.0.0.1", resolve);
  });
  const timer = setTimeout(() => settle.reject(new ToolsearchError("upstream_timeout", `no authorization redirect within ${LOGIN_TIMEOUT_MS / 60_000} minutes`)), LOGIN_TIMEOUT_MS);
  timer.unref();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    code,
    expectState: (state) => void (expected = state),
    close: async () => {
      clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * `--no-browser`: follows the authorization server's redirects until they reach our callback. Cookies are kept per
 * origin across the hops, as a browser would: servers that consent without a person (e.g. an OpenID provider with
 * automatic interactions) bind the steps of one authorization to a cookie.
 */
async function followRedirects(start: URL, callback: string): Promise<void> {
  const cookies = new Map<string, Map<string, string>>();
  let url = start;
  for (let hop = 0; hop < MAX_REDIRECTS; hop++) {
    const jar = cookies.get(url.origin) ?? new Map<string, string>();
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} });
    await response.body?.cancel();
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      // An empty value is how a server clears a cookie.
      if (at > 0 && value) jar.set(name, value);
      else if (at > 0) jar.delete(name);
    }
    cookies.set(url.origin, jar);
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || !location) {
      throw new ToolsearchError("unauthorized", `the authorization server answered ${response.status} without a redirect: it wants a person. Run the login without --no-browser and open the URL.`);
    }
    url = new URL(location, url);
    if (url.toString().startsWith(callback)) {
      await (await fetch(url)).body?.cancel();
      return;
    }
  }
  throw new ToolsearchError("unauthorized", `more than ${MAX_REDIRECTS} redirects without reaching ${callback}`);
}

function openBrowser(url: string): void {
  const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  try {
    const child = spawn(command, [url], { stdio: "ignore", detached: true });
    child.on("error", () => undefined); // no browser here: the printed URL is the way
    child.unref();
  } catch {
    // the printed URL is the way
  }
}

/** One call (or the tool list) through an `Upstream` with the gateway's OAuth: a needed login fails at once. */
async function call(name: string, server: ServerConfig, store: Store, owner: string, tool: string | undefined, flags: AuthFlags): Promise<void> {
  let args: Record<string, unknown>;
  try {
    args = JSON.parse(flags.args ?? "{}") as Record<string, unknown>;
  } catch (error) {
    throw new ToolsearchError("invalid_arguments", `--args is not JSON: ${(error as Error).message}`);
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) throw new ToolsearchError("invalid_arguments", "--args must be a JSON object");
  const auth = isStdioConfig(server) ? undefined : upstreamAuth(store, owner, name, server.oauth);
  const upstream = new Upstream(name, server, () => undefined, { auth, log: () => undefined, restartDelayMs: 600_000 });
  try {
    if (tool === undefined) {
      await upstream.start();
      if (await auth?.loginRequired()) throw auth!.loginError();
      if (upstream.state !== "ready") throw new ToolsearchError("upstream_unavailable", `${upstream.describeOutage()}.`);
      if (flags.json) printJson({ tools: upstream.tools });
      else printLines(upstream.tools.map((t) => `${t.name}${t.description ? `  ${t.description.split("\n")[0]}` : ""}`));
      return;
    }
    const result = await upstream.callTool(tool, args);
    if (flags.json) printJson(result);
    else printLines(result.content.map((part) => (part.type === "text" ? part.text : JSON.stringify(part))));
    if (result.isError) process.exitCode = 1;
  } finally {
    await upstream.close();
  }
}
