/**
 * One upstream MCP server: a client connection (stdio child process or Streamable HTTP) with its tool list kept
 * current, restarted with exponential backoff when it fails to start, crashes or stops answering, and closed (child
 * process included) on shutdown. The gateway only sees `tools`, `state` and `callTool`.
 *
 * Its life: `stopped` (nothing runs; the gateway may know its tools from a manifest) → `starting` → `ready` → back to
 * `stopped` after `idleStopMs` without a call. A call to a stopped server starts it and waits; calls that arrive while
 * it starts share that one start.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type {
  CallToolResult, LoggingMessageNotification, Prompt, Resource, ResourceTemplate, Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import type { UpstreamAuth } from "../auth/upstream-oauth.js";
import { ToolsearchError } from "../errors.js";
import { withTraceContext } from "../ops/tracing.js";
import { observeUpstreamCall } from "../ops/upstream-calls.js";
import { isStdioConfig, type ServerConfig } from "./config.js";
import { perRequestSignalFetch } from "./request-signal.js";
import {
  ErrorCode, LoggingMessageNotificationSchema, McpError, PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema,
} from "./sdk.js";

/** Timing of one upstream: timeouts and restart backoff. */
export interface UpstreamOptions {
  /** Most time a `tools/call` may take (default 60 s). */
  callTimeoutMs?: number;
  /** Most time to connect, initialize and list tools (default 30 s). */
  connectTimeoutMs?: number;
  /** First restart delay after a failure (default 1 s); doubled on each failure in a row. */
  restartDelayMs?: number;
  /** Most time a ping may take after a call timed out; no answer means the server hung and is restarted (default 5 s). */
  pingTimeoutMs?: number;
  /** Longest restart delay (default 60 s). */
  maxRestartDelayMs?: number;
  /** Stop a started server after this long without a call (default 0: never). */
  idleStopMs?: number;
  /** Where to write one-line status messages (default: stderr). */
  log?: (line: string) => void;
  /** Where a stdio server's stderr lines go, masked (default: only their tail is kept, for error messages). */
  stderr?: (server: string, line: string) => void;
  /** Masks secret values in every message this upstream writes or returns (default: none). */
  redact?: (text: string) => string;
  /** OAuth of a remote server (src/auth/upstream-oauth.ts): its tokens, and whether only a login can help. */
  auth?: UpstreamAuth;
}

export type UpstreamState = "stopped" | "starting" | "ready" | "restarting" | "closed";

const DEFAULTS = { callTimeoutMs: 60_000, connectTimeoutMs: 30_000, pingTimeoutMs: 5_000, restartDelayMs: 1_000, maxRestartDelayMs: 60_000, idleStopMs: 0 };
const STDERR_TAIL_LINES = 5;
const CLIENT_INFO = { name: "toolsearch-gateway", version: "0.1.0" };

/**
 * The SDK's client side, loaded by the first start rather than with this module: a gateway started from manifests
 * answers its first search without it (docs/benchmarks.md, "Launch time").
 */
const clientSdk = lazily(() => import("./sdk-client.js"));
type ClientSdk = Awaited<ReturnType<typeof clientSdk>>;

/**
 * Called with the server's full tool list whenever the server lists it (`listed`: on every start and `list_changed`),
 * and with an empty list when a started server goes down (`down`). An idle stop keeps the tools known: no call.
 */
export type ToolsListener = (server: string, tools: McpTool[], source: "listed" | "down") => void;

/** What a server offers besides tools (SPEC §14); empty lists for what it does not declare. */
export interface UpstreamOffer {
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

/** An offer with nothing in it (a server that is down, or one that declares neither resources nor prompts). */
export const EMPTY_OFFER: UpstreamOffer = Object.freeze({ resources: [], resourceTemplates: [], prompts: [] }) as UpstreamOffer;

/** What an upstream tells the gateway besides its tools. */
export interface UpstreamListeners {
  /**
   * The server's resources, templates and prompts: after the tools on every start (`listed`, before `onTools` is
   * called, so `offer` is current there), after its `list_changed` notifications, and empty when it goes down.
   */
  onOffer?: (server: string, offer: UpstreamOffer, source: "listed" | "down") => void;
  /** `notifications/resources/updated` for a URI the gateway subscribed to. */
  onResourceUpdated?: (server: string, uri: string) => void;
  /** `notifications/message` (the server's log). */
  onLog?: (server: string, params: LoggingMessageNotification["params"]) => void;
}

/** The requests an upstream serves besides tool calls, by method, with the client method that sends each. */
type Send = (client: Client, params: never, options: object) => Promise<Record<string, unknown>>;
const OFFER_REQUESTS: Record<"resources/read" | "prompts/get" | "completion/complete", Send> = {
  "resources/read": (client, params, options) => client.readResource(params, options),
  "prompts/get": (client, params, options) => client.getPrompt(params, options),
  "completion/complete": (client, params, options) => client.complete(params, options),
};
export type OfferRequest = keyof typeof OFFER_REQUESTS;

export class Upstream {
  readonly name: string;
  readonly config: ServerConfig;
  private readonly options: Required<Omit<UpstreamOptions, "log" | "redact" | "auth" | "stderr">> & { log: (line: string) => void };
  private readonly onStderr?: (server: string, line: string) => void;
  private readonly auth?: UpstreamAuth;
  private readonly redact: (text: string) => string;
  private readonly onTools: ToolsListener;
  private client?: Client;
  private currentState: UpstreamState = "stopped";
  /** The start in progress, shared by every call that arrives meanwhile. */
  private starting?: Promise<void>;
  private idleTimer?: NodeJS.Timeout;
  private callsInFlight = 0;
  /** How many times a child was started (or an HTTP connection opened): tells tests and benchmarks what ran. */
  private startCount = 0;
  private failures = 0;
  private restartTimer?: NodeJS.Timeout;
  private nextRestartAt?: number;
  private lastError?: string;
  private stderrTail: string[] = [];
  private toolList: McpTool[] = [];
  private currentOffer: UpstreamOffer = EMPTY_OFFER;
  private readonly listeners: UpstreamListeners;
  /** URIs the gateway subscribed to (renewed on every connection; a subscribed server is not stopped when idle). */
  private readonly subscriptions = new Set<string>();
  private refreshing?: Promise<void>;
  private refreshAgain = false;
  /** Bumped on every connection, so events of an old connection are ignored. */
  private generation = 0;

  constructor(name: string, config: ServerConfig, onTools: ToolsListener, options: UpstreamOptions = {}, listeners: UpstreamListeners = {}) {
    this.name = name;
    this.listeners = listeners;
    this.config = config;
    this.onTools = onTools;
    this.redact = options.redact ?? ((text) => text);
    const write = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.auth = options.auth;
    this.onStderr = options.stderr;
    const { redact: _redact, auth: _auth, stderr: _stderr, ...rest } = stripUndefined(options);
    this.options = { ...DEFAULTS, ...rest, log: (line) => write(this.redact(line)) };
  }

  /** How many connections were opened so far (each stdio one is a child process). */
  get starts(): number {
    return this.startCount;
  }

  get state(): UpstreamState {
    return this.currentState;
  }

  /** The tools as the server last listed them (empty while it is down). */
  get tools(): McpTool[] {
    return this.toolList;
  }

  /** The resources, templates and prompts as the server last listed them (empty while it is down). */
  get offer(): UpstreamOffer {
    return this.currentOffer;
  }

  /** Process id of a stdio child while it runs. */
  get pid(): number | undefined {
    const transport = (this.client as { transport?: Transport & { pid?: number | null } } | undefined)?.transport;
    return transport?.pid ?? undefined;
  }

  /** A sentence on why the server is not ready, for error messages. */
  describeOutage(): string {
    return this.redact(this.outageSentence());
  }

  private outageSentence(): string {
    const why = this.lastError ? ` (${this.lastError})` : "";
    if (this.currentState === "closed") return `upstream server "${this.name}" is shut down`;
    if (this.currentState === "starting") return `upstream server "${this.name}" is still starting${why}`;
    if (this.currentState === "stopped") return `upstream server "${this.name}" is not running${why}`;
    const seconds = this.nextRestartAt === undefined ? undefined : Math.max(0, (this.nextRestartAt - Date.now()) / 1000);
    const wait = seconds === undefined ? "" : `; next restart attempt in ${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
    return `upstream server "${this.name}" is down${why}${wait}`;
  }

  /**
   * Starts a stopped server (connect, initialize, list tools); on failure a restart is scheduled, so this never
   * throws. Resolves once this attempt is over. Concurrent calls share one attempt; a running server is left alone.
   */
  start(): Promise<void> {
    if (this.currentState !== "stopped") return this.starting ?? Promise.resolve();
    this.currentState = "starting";
    this.starting = this.connect().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Calls a tool by its upstream name, starting a stopped server first. Throws `upstream_unavailable` or `upstream_timeout`; MCP errors pass through. */
  async callTool(tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return observeUpstreamCall(this.name, tool, () => this.callToolNow(tool, args));
  }

  private async callToolNow(tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
    this.callsInFlight++;
    clearTimeout(this.idleTimer);
    try {
      // At once, without a connection attempt: only a person can help, and the server stays searchable meanwhile.
      if (await this.auth?.loginRequired()) throw this.auth!.loginError();
      await this.start();
      if (this.currentState !== "ready" && (await this.auth?.loginRequired())) throw this.auth!.loginError();
      return await this.callStarted(tool, args);
    } finally {
      this.callsInFlight--;
      this.armIdleStop();
    }
  }

  /**
   * Sends `resources/read`, `prompts/get` or `completion/complete`, starting a stopped server first. Throws like
   * `callTool`; MCP errors (e.g. an unknown URI) pass through.
   */
  async request(method: OfferRequest, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.whileBusy(async () => {
      const client = this.readyClient(method);
      return this.guardConnection(client, method, () => OFFER_REQUESTS[method](client, params as never, { timeout: this.options.callTimeoutMs }));
    });
  }

  /** Subscribes to updates of `uri` (kept across restarts until `unsubscribe`). */
  async subscribe(uri: string): Promise<void> {
    this.subscriptions.add(uri);
    await this.whileBusy(async () => {
      const client = this.readyClient("resources/subscribe");
      await this.guardConnection(client, "resources/subscribe", () => client.subscribeResource({ uri }, { timeout: this.options.callTimeoutMs }));
    });
  }

  /** Ends a subscription; the server is told when it runs (a stopped one has nothing to forget). */
  async unsubscribe(uri: string): Promise<void> {
    if (!this.subscriptions.delete(uri)) return;
    const client = this.client;
    if (this.currentState === "ready" && client) await client.unsubscribeResource({ uri }, { timeout: this.options.callTimeoutMs }).catch(() => undefined);
    this.armIdleStop();
  }

  /** Runs `work` as one call: the server is started first and not stopped for idleness meanwhile. */
  private async whileBusy<T>(work: () => Promise<T>): Promise<T> {
    this.callsInFlight++;
    clearTimeout(this.idleTimer);
    try {
      await this.start();
      return await work();
    } finally {
      this.callsInFlight--;
      this.armIdleStop();
    }
  }

  private readyClient(what: string): Client {
    const client = this.client;
    if (this.currentState !== "ready" || !client) throw new ToolsearchError("upstream_unavailable", `${this.describeOutage()}. ${what} was not sent; try again later.`);
    return client;
  }

  /** MCP errors of the server pass through; a broken connection restarts the server and becomes `upstream_unavailable`. */
  private async guardConnection<T>(client: Client, what: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        throw new ToolsearchError("upstream_timeout", `upstream server "${this.name}" did not answer ${what} within ${this.options.callTimeoutMs} ms; try again later.`);
      }
      // The server's own refusal (say, an unknown URI) goes to the client as it is, secrets masked.
      if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) throw new McpError(error.code, this.redact(error.message.replace(/^MCP error -?\d+: /, "")), error.data);
      this.fail(client, errorText(error));
      throw new ToolsearchError("upstream_unavailable", `${this.describeOutage()}. ${what} was not completed.`);
    }
  }

  private async callStarted(tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const client = this.client;
    if (this.currentState !== "ready" || !client) throw new ToolsearchError("upstream_unavailable", `${this.describeOutage()}. Try again later or use another tool.`);
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: this.options.callTimeoutMs })) as CallToolResult;
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        const slow = `upstream server "${this.name}" did not answer ${tool} within ${this.options.callTimeoutMs} ms`;
        if (await this.answersPing(client)) throw new ToolsearchError("upstream_timeout", `${slow}; the server itself still answers, so try again or with a smaller request.`);
        this.fail(client, `hung: a call timed out and it did not answer a ping within ${this.options.pingTimeoutMs} ms`);
        throw new ToolsearchError("upstream_timeout", `${slow}, and it no longer answers at all: it is being restarted. Try again later.`);
      }
      if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) throw error;
      if (this.auth && (await isUnauthorized(error))) {
        // The tokens expired and could not be refreshed: stop (no restart loop) until someone logs in again.
        this.stopUnauthorized(client);
        throw this.auth.loginError();
      }
      // The connection broke during the call (crash, HTTP server gone): restart it.
      this.fail(client, errorText(error));
      throw new ToolsearchError("upstream_unavailable", `${this.describeOutage()}. The call to ${tool} was not completed.`);
    }
  }

  /** Whether the server answers a ping in time (tells a slow tool from a hung server). */
  private async answersPing(client: Client): Promise<boolean> {
    try {
      await client.ping({ timeout: this.options.pingTimeoutMs });
      return true;
    } catch {
      return false;
    }
  }

  /** (Re)arms the idle stop: a started server with no call in flight for `idleStopMs` is stopped. */
  private armIdleStop(): void {
    clearTimeout(this.idleTimer);
    if (this.options.idleStopMs <= 0 || this.callsInFlight > 0 || this.subscriptions.size > 0 || this.currentState !== "ready") return;
    this.idleTimer = setTimeout(() => void this.stop(), this.options.idleStopMs);
    this.idleTimer.unref();
  }

  /** Stops a running server (a stdio child is terminated) but keeps its tools known; the next call starts it again. */
  async stop(): Promise<void> {
    if (this.currentState !== "ready" || this.callsInFlight > 0 || this.subscriptions.size > 0) return;
    this.currentState = "stopped";
    clearTimeout(this.idleTimer);
    this.generation++;
    const client = this.client;
    this.client = undefined;
    this.options.log(`toolsearch mcp: upstream "${this.name}" stopped after ${Math.round(this.options.idleStopMs / 1000)} s without a call`);
    await client?.close().catch(() => undefined);
  }

  /** Stops restarting and closes the connection (a stdio child is terminated). */
  async close(): Promise<void> {
    this.currentState = "closed";
    clearTimeout(this.restartTimer);
    clearTimeout(this.idleTimer);
    this.generation++;
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    const sdk = await clientSdk();
    if (generation !== this.generation) return; // closed or stopped meanwhile
    const client = new sdk.Client(CLIENT_INFO, { capabilities: {} });
    this.client = client;
    const transport = this.createTransport(sdk);
    this.startCount++;
    client.onclose = () => {
      // Deferred, so that a failing connect reports its own error (e.g. "fetch failed") rather than this generic one.
      setImmediate(() => {
        if (generation === this.generation) this.fail(client, this.withStderr("connection closed"));
      });
    };
    client.onerror = (error) => {
      if (generation === this.generation) this.lastError = errorText(error);
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (generation === this.generation) this.scheduleRefresh(client, generation);
    });
    this.listenBeyondTools(client, generation);
    try {
      await client.connect(transport, { timeout: this.options.connectTimeoutMs });
      const tools = await this.listAllTools(client);
      const offer = await this.listOffer(client);
      await this.renewSubscriptions(client);
      if (generation !== this.generation) return;
      this.toolList = tools;
      this.currentOffer = offer;
      this.listeners.onOffer?.(this.name, offer, "listed");
      this.currentState = "ready";
      this.failures = 0;
      this.lastError = undefined;
      this.nextRestartAt = undefined;
      this.options.log(`toolsearch mcp: upstream "${this.name}" ready with ${tools.length} tools`);
      this.onTools(this.name, tools, "listed");
      this.armIdleStop();
    } catch (error) {
      if (generation !== this.generation) return;
      if (this.auth && ((await isUnauthorized(error)) || (await this.auth.loginRequired()))) this.stopUnauthorized(client);
      else this.fail(client, this.withStderr(errorText(error)));
    }
  }

  /** A server that wants an OAuth login is stopped, not restarted: retrying cannot help until someone logs in. */
  private stopUnauthorized(client: Client): void {
    if (client !== this.client) return;
    this.generation++;
    this.client = undefined;
    void client.close().catch(() => undefined);
    this.currentState = "stopped";
    this.lastError = "it needs an OAuth login";
    this.options.log(`toolsearch mcp: upstream "${this.name}" needs an OAuth login; ${this.auth!.loginError().message}`);
  }

  private createTransport({ getDefaultEnvironment, StdioClientTransport, StreamableHTTPClientTransport }: ClientSdk): Transport {
    if (isStdioConfig(this.config)) {
      const { command, args, env, cwd } = this.config;
      const transport = new StdioClientTransport({
        command, args, cwd,
        // As MCP clients do: a safe default environment (PATH, HOME …) plus the configured variables, so the
        // gateway's own secrets (e.g. TOOLSEARCH_MCP_TOKEN) do not leak into upstream processes.
        env: { ...getDefaultEnvironment(), ...env },
        stderr: "pipe",
      });
      this.stderrTail = [];
      transport.stderr?.on("data", (chunk: Buffer) => this.keepStderr(chunk));
      return transport;
    }
    // Each request gets its own abort signal (request-signal.ts) and carries the caller's trace context on.
    const fetch = perRequestSignalFetch(withTraceContext());
    return new StreamableHTTPClientTransport(new URL(this.config.url), { requestInit: { headers: this.config.headers ?? {} }, authProvider: this.auth?.provider, fetch });
  }

  /** Lists every tool, following `nextCursor` pages. */
  private listAllTools(client: Client): Promise<McpTool[]> {
    return this.listAll((params, options) => client.listTools(params, options).then((page) => ({ items: page.tools, nextCursor: page.nextCursor })));
  }

  /** Lists the resources, templates and prompts the server declares (capabilities), each following its pages. */
  private async listOffer(client: Client): Promise<UpstreamOffer> {
    const capabilities = client.getServerCapabilities() ?? {};
    const [resources, resourceTemplates, prompts] = await Promise.all([
      capabilities.resources ? this.listAll((p, o) => client.listResources(p, o).then((page) => ({ items: page.resources, nextCursor: page.nextCursor }))) : [],
      capabilities.resources ? this.listAll((p, o) => client.listResourceTemplates(p, o).then((page) => ({ items: page.resourceTemplates, nextCursor: page.nextCursor }))) : [],
      capabilities.prompts ? this.listAll((p, o) => client.listPrompts(p, o).then((page) => ({ items: page.prompts, nextCursor: page.nextCursor }))) : [],
    ]);
    return { resources, resourceTemplates, prompts };
  }

  /** Follows `nextCursor` pages of one list. */
  private async listAll<T>(list: (params: { cursor?: string }, options: { timeout: number }) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    const seen = new Set<string>();
    do {
      const page = await list(cursor ? { cursor } : {}, { timeout: this.options.connectTimeoutMs });
      items.push(...page.items);
      cursor = page.nextCursor;
      if (cursor !== undefined && seen.has(cursor)) break; // a server that repeats a cursor would loop forever
      if (cursor !== undefined) seen.add(cursor);
    } while (cursor);
    return items;
  }

  /** Resources, prompts and log messages: re-list on `list_changed`, pass updates and log lines on. */
  private listenBeyondTools(client: Client, generation: number): void {
    const relist = async () => {
      if (generation !== this.generation) return;
      try {
        const offer = await this.listOffer(client);
        if (generation !== this.generation || this.currentState !== "ready") return;
        this.currentOffer = offer;
        this.listeners.onOffer?.(this.name, offer, "listed");
      } catch (error) {
        this.options.log(`toolsearch mcp: upstream "${this.name}" could not re-list its resources and prompts: ${errorText(error)}`);
      }
    };
    client.setNotificationHandler(ResourceListChangedNotificationSchema, relist);
    client.setNotificationHandler(PromptListChangedNotificationSchema, relist);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
      if (generation === this.generation && this.subscriptions.has(notification.params.uri)) this.listeners.onResourceUpdated?.(this.name, notification.params.uri);
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => {
      if (generation === this.generation) this.listeners.onLog?.(this.name, { ...notification.params, data: this.redactData(notification.params.data) });
    });
  }

  /** A log message's data with every secret value masked (the data may be any JSON value). */
  private redactData(data: unknown): unknown {
    if (typeof data === "string") return this.redact(data);
    const json = JSON.stringify(data);
    const masked = this.redact(json);
    if (masked === json) return data;
    try {
      return JSON.parse(masked);
    } catch {
      return masked;
    }
  }

  /** After a (re)start, subscribes again to what the gateway's clients still follow. */
  private async renewSubscriptions(client: Client): Promise<void> {
    for (const uri of this.subscriptions) await client.subscribeResource({ uri }, { timeout: this.options.connectTimeoutMs });
  }

  /**
   * One re-listing at a time: a burst of `list_changed` notifications gives one more listing after the running one,
   * so an older list can never overwrite a newer one.
   */
  private scheduleRefresh(client: Client, generation: number): void {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        await this.refresh(client, generation);
      } while (this.refreshAgain && generation === this.generation);
    })().finally(() => {
      this.refreshing = undefined;
    });
  }

  /** Re-lists tools after `notifications/tools/list_changed`. */
  private async refresh(client: Client, generation: number): Promise<void> {
    try {
      const tools = await this.listAllTools(client);
      if (generation !== this.generation || this.currentState !== "ready") return;
      this.toolList = tools;
      this.options.log(`toolsearch mcp: upstream "${this.name}" tools changed (${tools.length} tools)`);
      this.onTools(this.name, tools, "listed");
    } catch (error) {
      this.options.log(`toolsearch mcp: upstream "${this.name}" could not re-list its tools: ${errorText(error)}`);
    }
  }

  /** Marks the server down, withdraws its tools and schedules a restart with backoff. */
  private fail(client: Client, reason: string): void {
    if (this.currentState === "closed" || client !== this.client) return;
    this.generation++;
    this.client = undefined;
    void client.close().catch(() => undefined);
    const wasReady = this.currentState === "ready";
    this.currentState = "restarting";
    this.lastError = reason;
    if (this.toolList.length || wasReady) {
      this.toolList = [];
      this.onTools(this.name, [], "down");
    }
    if (this.currentOffer !== EMPTY_OFFER) {
      this.currentOffer = EMPTY_OFFER;
      this.listeners.onOffer?.(this.name, EMPTY_OFFER, "down");
    }
    const delay = Math.min(this.options.maxRestartDelayMs, this.options.restartDelayMs * 2 ** this.failures);
    this.failures++;
    this.nextRestartAt = Date.now() + delay;
    this.options.log(`toolsearch mcp: upstream "${this.name}" ${wasReady ? "went down" : "failed to start"}: ${reason}; restarting in ${delay} ms`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.currentState === "restarting") void this.connect();
    }, delay);
    this.restartTimer.unref();
  }

  private keepStderr(chunk: Buffer): void {
    const lines = chunk.toString("utf8").split(/\r?\n/).map((l) => this.redact(l.trim())).filter(Boolean);
    for (const line of lines) this.onStderr?.(this.name, line);
    this.stderrTail = [...this.stderrTail, ...lines].slice(-STDERR_TAIL_LINES);
  }

  /** A reason with the child's last stderr line, which usually says why it stopped. */
  private withStderr(reason: string): string {
    return this.stderrTail.length ? `${reason}; last stderr line: ${this.stderrTail.at(-1)}` : reason;
  }
}

/** The SDK's `UnauthorizedError`: its auth flow needs a person (the client bundle is loaded by then). */
async function isUnauthorized(error: unknown): Promise<boolean> {
  return error instanceof (await clientSdk()).UnauthorizedError;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs `load` once, on the first call, and hands every caller that same promise. */
function lazily<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
