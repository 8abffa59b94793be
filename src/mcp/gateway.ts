/**
 * The gateway: one small MCP tool surface in front of many MCP servers. Every upstream tool is indexed under its
 * namespaced name (`server__tool`) next to the tools of an optional static catalog; the client sees only
 * `search_tools`, `describe_tool`, `call_tool` (and `search_docs`/`read_doc` when documents are configured), and,
 * with `exposeFound`, the upstream tools that session's searches found, plus each server's `alwaysLoad` tools.
 *
 * With a manifest store, a server whose configuration is unchanged since it last ran is searchable at once from its
 * manifest and started only by the first call to one of its tools (manifests.ts); `eager` starts every server.
 *
 * @example
 * ```ts
 * const gateway = await Gateway.start({ config: loadGatewayConfig("mcp.json") });
 * await serveStdio(gateway); // see transports.ts
 * ```
 */
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { AnthropicTool } from "../catalog/tool.js";
import { ToolsearchError } from "../errors.js";
import { InputValidator } from "../execution/validate-input.js";
import type { DocumentIndex } from "../indexes/document-index.js";
import { ToolIndex } from "../indexes/tool-index.js";
import type { ToolSearchOptions } from "../indexes/tool-index-options.js";
import { handleDocsTool } from "../metatools/docs-tools.js";
import { DEFAULT_SEARCH_RESULTS, MAX_SEARCH_RESULTS, noToolGuidance } from "../metatools/tool-search.js";
import { configHash, type GatewayConfig, type ServerConfig } from "./config.js";
import {
  hasSettings, type KnownServer, launchKey, type LaunchSnapshot, launchSnapshotKey, readLaunchSnapshot, saveLaunchSnapshot,
} from "./launch-snapshot.js";
import { GATEWAY_OWNER, type ManifestStore, planLaunch } from "./manifests.js";
import { CALL_TOOL, DESCRIBE_TOOL, gatewayToolDefinitions, SEARCH_TOOLS } from "./meta-tools.js";
import { MAX_SELECT_NAMES, parseSelect, resolveSelect, unknownNamesNote } from "../metatools/select.js";
import { namespacedName, serverPrefix } from "./names.js";
import type { OpenApiSourceConfig } from "../openapi/config.js";
import type { OpenApiUpstream } from "./openapi-upstream.js";
import { toolFilter } from "./tool-filter.js";
import { Upstream, type UpstreamOptions } from "./upstream.js";
import { AjvJsonSchemaValidator, CallToolRequestSchema, ListToolsRequestSchema, McpError, Server } from "./sdk.js";
import { redactor, resolveServerConfig } from "./variables.js";

/** Everything the gateway serves. */
export interface GatewayOptions {
  /** Upstream MCP servers. */
  config?: GatewayConfig;
  /** Static tools (searchable and describable; they have no upstream, so `call_tool` refuses them). */
  catalog?: ToolIndex;
  /** A knowledge base: adds `search_docs` and `read_doc`. */
  docs?: DocumentIndex;
  /** Add the tools a session's searches find to that session's `tools/list` (and notify it with `list_changed`). */
  exposeFound?: boolean;
  /**
   * Where manifests are kept (any `Store`). Without one nothing is remembered: every server starts at launch to list
   * its tools, and the idle stop (`upstream.idleStopMs`) still stops the unused ones.
   */
  manifests?: ManifestStore;
  /** Whose manifests these are (default `gateway`; the service uses `collection:<name>`). */
  owner?: string;
  /** Start every server at launch, whatever the manifests say (the behaviour before manifests). */
  eager?: boolean;
  /** Where `${VAR}` in the configuration is looked up (default: the process's environment). */
  environment?: Record<string, string | undefined>;
  /** Timeouts and restart backoff of upstream servers. */
  upstream?: UpstreamOptions;
  /** One-line status messages (default: stderr). */
  log?: (line: string) => void;
  /**
   * Wait in `start` until every upstream made its first attempt (default true). With false the gateway answers at
   * once and its tools wait for the first attempts instead, so a client connects without waiting for slow servers.
   */
  waitForUpstreams?: boolean;
}

/** Where a namespaced tool really lives. */
interface Route {
  server: string;
  tool: string;
  definition: McpTool;
}

/** One client session: its MCP server object and the tools its own searches exposed. */
export interface GatewaySession {
  readonly server: Server;
  readonly exposed: Map<string, McpTool>;
}

const GATEWAY_INFO = { name: "toolsearch", version: "0.1.0" };
/**
 * One JSON Schema validator for every session: the SDK otherwise builds a new Ajv per session, which was most of
 * what an idle HTTP session cost in memory. The gateway's sessions never ask clients for input (elicitation), the
 * one thing it validates, so sharing it changes no behaviour.
 */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

export class Gateway {
  readonly index: ToolIndex;
  readonly upstreams = new Map<string, Upstream>();
  /** REST APIs from the configuration's `openapi` block, called over HTTP. */
  readonly openApis = new Map<string, OpenApiUpstream>();
  private readonly options: GatewayOptions;
  private readonly log: (line: string) => void;
  private readonly routes = new Map<string, Route>();
  private readonly namesByServer = new Map<string, string[]>();
  private readonly sessions = new Set<GatewaySession>();
  /** Namespaced names of the `alwaysLoad` tools, in configuration order. */
  private readonly alwaysLoaded: string[] = [];
  private readonly validator = new InputValidator();
  private firstAttempts: Promise<void> = Promise.resolve();
  private savingSnapshot: Promise<void> = Promise.resolve();

  private constructor(options: GatewayOptions) {
    this.options = options;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.index = options.catalog ?? new ToolIndex();
  }

  /**
   * Builds the gateway and starts the upstreams it must (all with `eager` or without a manifest store; otherwise only
   * those without a matching manifest); resolves when each of those has made its first attempt (ready or not).
   */
  static async start(options: GatewayOptions = {}): Promise<Gateway> {
    const gateway = new Gateway(options);
    // First, so that a bad document or a missing credential stops the start before any child process runs.
    await gateway.startOpenApis(Object.entries(options.config?.openapi ?? {}));
    const servers = Object.entries(options.config?.mcpServers ?? {});
    for (const [name, config] of servers) gateway.upstreams.set(name, gateway.createUpstream(name, config));
    for (const [name, config] of servers) gateway.alwaysLoaded.push(...(config.alwaysLoad ?? []).map((tool) => namespacedName(name, tool)));
    const toStart = await gateway.serversToStart(servers);
    gateway.firstAttempts = Promise.all(toStart.map((name) => gateway.upstreams.get(name)!.start())).then(() => undefined);
    if (options.waitForUpstreams ?? true) await gateway.firstAttempts;
    return gateway;
  }

  /** Reads each API's document and indexes its operations. */
  private async startOpenApis(apis: [string, OpenApiSourceConfig][]): Promise<void> {
    if (!apis.length) return;
    // Loaded only when the configuration has APIs: the OpenAPI parser weighs more than the rest of the gateway.
    const { OpenApiUpstream } = await import("./openapi-upstream.js");
    for (const [name, config] of apis) {
      const api = new OpenApiUpstream(name, config, (server, tools) => this.setServerTools(server, tools), { log: this.log, callTimeoutMs: this.options.upstream?.callTimeoutMs });
      this.openApis.set(name, api);
      await api.start();
    }
  }

  private createUpstream(name: string, written: ServerConfig): Upstream {
    const { config, secrets } = resolveServerConfig(written, this.options.environment ?? process.env);
    const hash = configHash(written);
    const options = { log: this.log, ...this.options.upstream, redact: redactor(secrets) };
    return new Upstream(name, config, (server, tools, source) => {
      this.setServerTools(server, tools);
      if (source === "listed") this.saveManifest(server, hash, tools);
    }, options);
  }

  /** Which servers start at launch; the others become searchable from their manifests now. */
  private async serversToStart(servers: [string, ServerConfig][]): Promise<string[]> {
    const store = this.options.manifests;
    if (this.options.eager || !store) return servers.map(([name]) => name);
    const hashes = Object.fromEntries(servers.map(([name, config]) => [name, configHash(config)]));
    const plan = await planLaunch(store, this.owner, hashes);
    // In configuration order, whatever order the store answered in: the first server to claim a name keeps it.
    const known = servers.filter(([name]) => plan.known.has(name)).map(([name, config]): KnownServer => [name, hashes[name], plan.known.get(name)!, { tools: config.tools, alwaysLoad: config.alwaysLoad }]);
    await this.indexKnown(known);
    for (const server of plan.invalidated) this.log(`toolsearch mcp: upstream "${server}" has a changed configuration: its manifest was dropped and it starts now`);
    if (plan.known.size) this.log(`toolsearch mcp: ${plan.known.size} upstream${plan.known.size === 1 ? "" : "s"} searchable from manifests, not started`);
    return plan.unknown;
  }

  /**
   * Indexes the tools of the servers known from manifests: from the launch snapshot when it was taken from these
   * same manifests (launch-snapshot.ts), else tool by tool, and then a new snapshot is stored for the next launch.
   */
  private async indexKnown(known: KnownServer[]): Promise<void> {
    const store = this.options.manifests;
    // A static catalog shares the index, and the snapshot holds the manifests' tools only.
    const snapshots = store && hasSettings(store) && this.index.size === 0 && known.length ? store : undefined;
    const key = snapshots ? launchKey(this.owner, known) : "";
    const setting = launchSnapshotKey(this.owner, known);
    const saved = snapshots ? await readLaunchSnapshot(snapshots, setting, key).catch(() => undefined) : undefined;
    if (saved && this.restoreKnown(known, saved)) return;
    const indexed: Record<string, number[]> = {};
    const notes: string[] = [];
    const note = (line: string) => {
      notes.push(line);
      this.log(line);
    };
    for (const [server, , tools] of known) indexed[server] = this.setServerTools(server, tools as McpTool[], note);
    if (!snapshots) return;
    const snapshot = { bytes: this.index.snapshot(), indexed, notes };
    // Not awaited: the first answer need not wait for it; `close` does, so the store is not closed under it.
    this.savingSnapshot = saveLaunchSnapshot(snapshots, this.owner, setting, key, snapshot).catch((error: unknown) => {
      this.log(`toolsearch mcp: could not save the launch snapshot: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /** Loads a launch snapshot and routes the tools it indexed; false (index left empty) when it cannot be loaded. */
  private restoreKnown(known: KnownServer[], saved: LaunchSnapshot): boolean {
    try {
      this.index.loadSnapshot(saved.bytes);
    } catch (error) {
      if (error instanceof ToolsearchError && error.code === "snapshot_invalid") return false;
      throw error;
    }
    for (const [server, , tools] of known) {
      const names: string[] = [];
      for (const position of saved.indexed[server] ?? []) {
        const tool = tools[position] as McpTool;
        const name = namespacedName(server, tool.name);
        this.routes.set(name, { server, tool: tool.name, definition: { ...tool, name } });
        names.push(name);
      }
      this.namesByServer.set(server, names);
    }
    for (const line of saved.notes) this.log(line);
    return true;
  }

  private get owner(): string {
    return this.options.owner ?? GATEWAY_OWNER;
  }

  private saveManifest(server: string, hash: string, tools: McpTool[]): void {
    this.options.manifests?.putManifest({ owner: this.owner, server, configHash: hash, tools }).catch((error: unknown) => {
      this.log(`toolsearch mcp: could not save the manifest of "${server}": ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /** Resolves once every upstream has made its first connection attempt (ready or failed). */
  whenStarted(): Promise<void> {
    return this.firstAttempts;
  }

  /** The tools the gateway lists: its meta-tools, the `alwaysLoad` tools, then the tools `session` exposed so far. */
  listTools(session?: GatewaySession): McpTool[] {
    const meta = gatewayToolDefinitions({ docs: this.options.docs !== undefined }).map(toMcpTool);
    const always = this.alwaysLoaded.flatMap((name) => this.routes.get(name)?.definition ?? []);
    const exposed = [...(session?.exposed.values() ?? [])].filter((tool) => !this.alwaysLoaded.includes(tool.name));
    return [...meta, ...always, ...exposed];
  }

  /** Runs one of the gateway's tools (a meta-tool, or an upstream tool listed to `session`, by its namespaced name). */
  async callTool(name: string, args: Record<string, unknown>, session?: GatewaySession): Promise<CallToolResult> {
    // The first search must see every server that can start, not an empty index.
    await this.firstAttempts;
    try {
      switch (name) {
        case SEARCH_TOOLS:
          return await this.searchTools(args, session);
        case DESCRIBE_TOOL:
          return await this.describeTool(args);
        case CALL_TOOL:
          return await this.proxyCall(args.name, args.arguments);
      }
      if (this.options.docs) {
        const result = await handleDocsTool(this.options.docs, name, args);
        if (result) return { content: typeof result.content === "string" ? [text(result.content)] : result.content.map((b) => (b.type === "text" ? b : text(JSON.stringify(b)))), isError: result.isError };
      }
      if (session?.exposed.has(name) || this.alwaysLoaded.includes(name)) return await this.proxyCall(name, args);
      return failure(`Unknown tool ${JSON.stringify(name)}. This gateway offers ${this.listTools(session).map((t) => t.name).join(", ")}.`);
    } catch (error) {
      if (error instanceof ToolsearchError) return failure(error.message);
      throw error;
    }
  }

  /** A new MCP server session bound to this gateway (one per stdio connection or HTTP session). */
  createSession(): Server {
    const server = new Server(GATEWAY_INFO, {
      capabilities: { tools: { listChanged: true } },
      jsonSchemaValidator: SHARED_VALIDATOR,
      instructions: "Search first, then call: use search_tools to find the tool you need among all connected MCP servers, then call_tool with its name and arguments.",
    });
    this.attach({ server, exposed: new Map() });
    return server;
  }

  /** Points a session's requests at this gateway and tracks it here. */
  private attach(session: GatewaySession): void {
    const { server } = session;
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: this.listTools(session) }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => this.callTool(request.params.name, request.params.arguments ?? {}, session));
    this.sessions.add(session);
    server.onclose = () => this.sessions.delete(session);
  }

  /**
   * Moves every open session to `next`, which answers their requests from now on; this gateway keeps none, so closing
   * it afterwards stops its upstreams without ending the sessions. The service does this when a collection is replaced
   * by one of the same kind: clients keep their session and see the new tools. Exposed tools that `next` does not
   * have are dropped, and a session whose tool list changed is sent `list_changed`.
   *
   * @example
   * ```ts
   * old.handOver(replacement);
   * await old.close();
   * ```
   */
  handOver(next: Gateway): void {
    for (const session of [...this.sessions]) {
      const before = JSON.stringify(this.listTools(session));
      this.sessions.delete(session);
      next.attach(session);
      for (const name of [...session.exposed.keys()]) {
        const route = next.routes.get(name);
        if (route) session.exposed.set(name, route.definition);
        else session.exposed.delete(name);
      }
      if (JSON.stringify(next.listTools(session)) !== before) notifyToolsChanged(session);
    }
  }

  /** Number of open sessions. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Closes every upstream (stdio children are terminated) and every session. */
  async close(): Promise<void> {
    await this.savingSnapshot;
    await Promise.all([...this.upstreams.values()].map((u) => u.close()));
    await Promise.all([...this.sessions].map((s) => s.server.close().catch(() => undefined)));
  }

  /**
   * Replaces the indexed tools of one server (called on connect, `list_changed`, and with [] when it goes down);
   * returns the positions in `tools` of those indexed. What it skips is told to `note`.
   */
  private setServerTools(server: string, tools: McpTool[], note = this.log): number[] {
    for (const name of this.namesByServer.get(server) ?? []) {
      this.index.remove(name);
      this.routes.delete(name);
    }
    const names: string[] = [];
    const config = this.options.config?.mcpServers[server];
    const keep = toolFilter(config?.tools);
    const indexed: number[] = [];
    for (const [position, tool] of tools.entries()) {
      if (!keep(tool.name)) continue;
      const name = namespacedName(server, tool.name);
      if (this.index.get(name)) {
        note(`toolsearch mcp: skipped ${server}/${tool.name}: the name ${name} is already taken`);
        continue;
      }
      try {
        this.index.add({ ...tool, name, category: server });
      } catch (error) {
        const code = error instanceof ToolsearchError ? ` (${error.code})` : "";
        note(`toolsearch mcp: skipped ${server}/${tool.name}${code}: ${(error as Error).message}`);
        continue;
      }
      this.routes.set(name, { server, tool: tool.name, definition: { ...tool, name } });
      names.push(name);
      indexed.push(position);
    }
    this.namesByServer.set(server, names);
    const unlisted = (config?.alwaysLoad ?? []).filter((tool) => !this.routes.has(namespacedName(server, tool)));
    if (tools.length && unlisted.length) note(`toolsearch mcp: alwaysLoad of "${server}" names tools it does not offer (or that tools.allow/deny hide): ${unlisted.join(", ")}`);
    this.refreshExposed(server);
    return indexed;
  }

  /**
   * In every session, drops exposed tools that are gone and updates the definitions of those that changed. An
   * `alwaysLoad` tool is in every session's list, so any change to one notifies them all.
   */
  private refreshExposed(server?: string): void {
    const alwaysChanged = server !== undefined && this.alwaysLoaded.some((name) => name.startsWith(serverPrefix(server)));
    for (const session of this.sessions) {
      let changed = alwaysChanged;
      for (const [name, definition] of [...session.exposed]) {
        const route = this.routes.get(name);
        if (!route) changed = session.exposed.delete(name) || changed;
        else if (route.definition !== definition) {
          session.exposed.set(name, route.definition);
          changed = true;
        }
      }
      if (changed) notifyToolsChanged(session);
    }
  }

  private async searchTools(args: Record<string, unknown>, session?: GatewaySession): Promise<CallToolResult> {
    const engine = args.engine === undefined ? "bm25" : args.engine;
    const field = engine === "regex" ? "pattern or query" : "query";
    const query = typeof args.query === "string" ? args.query.trim() : "";
    if (!query) return failure(`${SEARCH_TOOLS} needs a query, e.g. {"query": "write file"} (with engine "regex", a pattern such as "file|directory").`);
    const limit = args.limit === undefined ? DEFAULT_SEARCH_RESULTS : args.limit;
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_RESULTS) {
      return failure(`limit must be a whole number from 1 to ${MAX_SEARCH_RESULTS} (got ${JSON.stringify(args.limit)}).`);
    }
    if (typeof engine !== "string") return failure(`engine must be a string such as "bm25" or "regex".`);
    const selected = parseSelect(query);
    if (selected) return this.selectTools(selected, session);
    let hits;
    try {
      hits = await this.index.search(query, { engine: engine as ToolSearchOptions["engine"], limit });
    } catch (error) {
      if (error instanceof ToolsearchError) return failure(`${error.message} Fix the ${field} and search again.`);
      throw error;
    }
    if (hits.length === 0) return { content: [text(noToolGuidance(this.index, query, engine === "regex" ? "regex" : "bm25"))] };
    return this.foundTools(hits, session);
  }

  /** `select:a,b`: exactly the named tools; unknown names come back with their closest names. */
  private selectTools(names: string[], session?: GatewaySession): CallToolResult {
    if (names.length === 0 || names.length > MAX_SELECT_NAMES) return failure(`A select query names the tools to load, e.g. "select:filesystem__read_text_file" (at most ${MAX_SELECT_NAMES} names).`);
    const selection = resolveSelect(names, this.index.names());
    const note = unknownNamesNote(selection);
    if (selection.found.length === 0) return { content: [text(`${note} Search by keywords if none of these is what you need.`)] };
    return this.foundTools(selection.found.map((name) => ({ name, description: this.index.get(name)!.description })), session, note);
  }

  private foundTools(found: { name: string; description: string }[], session?: GatewaySession, note = ""): CallToolResult {
    const results = found.map(({ name, description }) => {
      const tool = this.index.get(name)!;
      const route = this.routes.get(name);
      return {
        name,
        description,
        ...(route ? { server: route.server } : { server: null }),
        inputSchema: tool.inputSchema,
      };
    });
    if (this.options.exposeFound && session) this.expose(session, results.map((r) => r.name));
    const how = this.options.exposeFound
      ? `Call one with ${CALL_TOOL} {"name", "arguments"}, or directly: the upstream tools found are now in your tool list.`
      : `Call one with ${CALL_TOOL} {"name": <name>, "arguments": {…}} matching its inputSchema.`;
    return { content: [text(JSON.stringify({ results, ...(note ? { unknown: note } : {}), next: how }))] };
  }

  /** Adds found tools to the tool list of the session that searched (and only to it). */
  private expose(session: GatewaySession, names: string[]): void {
    let added = false;
    for (const name of names) {
      const route = this.routes.get(name);
      if (!route || session.exposed.has(name)) continue;
      session.exposed.set(name, route.definition);
      added = true;
    }
    if (added) notifyToolsChanged(session);
  }

  private async describeTool(args: Record<string, unknown>): Promise<CallToolResult> {
    const name = typeof args.name === "string" ? args.name.trim() : "";
    if (!name) return failure(`${DESCRIBE_TOOL} needs a name from ${SEARCH_TOOLS} results, e.g. {"name": "filesystem__read_text_file"}.`);
    const tool = this.index.get(name);
    if (!tool) return failure(this.outageFor(name) ?? this.unknownTool(name));
    const route = this.routes.get(name);
    const definition = route
      ? { ...route.definition, server: route.server }
      : { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, server: null };
    return { content: [text(JSON.stringify(definition))] };
  }

  /** `call_tool`: validates the arguments against the upstream tool's schema, then proxies the call. */
  private async proxyCall(rawName: unknown, rawArguments: unknown): Promise<CallToolResult> {
    if (typeof rawName !== "string" || !rawName.trim()) {
      return failure(`${CALL_TOOL} needs "name": a tool name from ${SEARCH_TOOLS} results, and "arguments": an object matching its inputSchema.`);
    }
    const name = rawName.trim();
    const route = this.routes.get(name);
    if (!route) return failure(this.whyNotCallable(name));
    const check = this.validator.validate(name, route.definition.inputSchema as Record<string, unknown>, rawArguments ?? {});
    if (!check.ok) return failure(check.message.replace(`call ${name} again`, `call ${CALL_TOOL} again`));
    const upstream = this.upstreams.get(route.server) ?? this.openApis.get(route.server)!;
    try {
      return await upstream.callTool(route.tool, check.input);
    } catch (error) {
      if (error instanceof McpError) return failure(`upstream server "${route.server}" refused ${route.tool}: ${error.message}`);
      throw error;
    }
  }

  private whyNotCallable(name: string): string {
    if (name === SEARCH_TOOLS || name === DESCRIBE_TOOL || name === CALL_TOOL) return `${name} is one of the gateway's own tools: call it directly, not through ${CALL_TOOL}.`;
    if (this.index.get(name)) return `${name} is in the static catalog only: no connected MCP server runs it, so it cannot be called here.`;
    return this.outageFor(name) ?? this.unknownTool(name);
  }

  private unknownTool(name: string): string {
    const near = this.index.closestNames(name);
    const hint = near.length ? ` Did you mean: ${near.join(", ")}?` : "";
    return `Unknown tool ${JSON.stringify(name)}.${hint} Use ${SEARCH_TOOLS} to find tools and pass a name exactly as it returns it.`;
  }

  /** When `name` belongs to a server that is down, says so (a server stopped while idle is not down: calls start it). */
  private outageFor(name: string): string | undefined {
    for (const upstream of this.upstreams.values()) {
      if (upstream.state !== "ready" && upstream.state !== "stopped" && name.startsWith(serverPrefix(upstream.name))) {
        return `${name} cannot be used now: ${upstream.describeOutage()}. Its tools come back when it does; try again later.`;
      }
    }
    return undefined;
  }
}

function notifyToolsChanged(session: GatewaySession): void {
  void session.server.sendToolListChanged().catch(() => undefined);
}

function toMcpTool(tool: AnthropicTool): McpTool {
  return { name: tool.name, description: tool.description, inputSchema: tool.input_schema as McpTool["inputSchema"] };
}

function text(value: string): { type: "text"; text: string } {
  return { type: "text", text: value };
}

function failure(message: string): CallToolResult {
  return { content: [text(message)], isError: true };
}
