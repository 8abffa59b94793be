/**
 * The upstream registry: every upstream the gateway fronts (MCP servers and OpenAPI sources), what they offer, and
 * where each namespaced tool really lives. It starts the servers it must at launch, makes the others searchable from
 * their manifests (manifests.ts) or the launch snapshot (launch-snapshot.ts), remembers a manifest whenever a server
 * lists its tools, and stops everything on close. Every MCP surface of the gateway (surfaces/) reads from it; none of
 * them starts, stops or indexes anything itself.
 *
 * @example
 * ```ts
 * const registry = new UpstreamRegistry(options, (server) => tools.refresh(server));
 * await registry.start();
 * registry.route("fs__read_file"); // { server: "fs", tool: "read_file", definition }
 * ```
 */
import type { LoggingMessageNotification, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { ToolsearchError } from "../errors.js";
import { ToolIndex } from "../indexes/tool-index.js";
import type { OpenApiSourceConfig } from "../openapi/config.js";
import { type SecretStore, type UpstreamAuth, upstreamAuth } from "../auth/upstream-oauth.js";
import { configHash, isStdioConfig, type ServerConfig } from "./config.js";
import type { GatewayOptions } from "./gateway.js";
import {
  hasSettings, type KnownServer, launchKey, type LaunchSnapshot, launchSnapshotKey, readLaunchSnapshot, saveLaunchSnapshot,
} from "./launch-snapshot.js";
import { GATEWAY_OWNER, planLaunch } from "./manifests.js";
import { namespacedName, serverPrefix } from "./names.js";
import { OfferCatalog } from "./offers.js";
import type { OpenApiUpstream } from "./openapi-upstream.js";
import { toolFilter } from "./tool-filter.js";
import { EMPTY_OFFER, Upstream, type UpstreamOffer } from "./upstream.js";
import { redactor, resolveServerConfig } from "./variables.js";
import { type HeldTool, PinBook, type ReviewDecisions } from "../trust/pin-book.js";

/** Where a namespaced tool really lives. */
export interface Route {
  server: string;
  tool: string;
  definition: McpTool;
}

/** What the registry tells the surfaces, so they can refresh what their sessions see. */
export interface RegistryEvents {
  /** The tools of `server` were replaced. */
  toolsChanged(server: string): void;
  /** The resources, templates or prompts of a server changed; `before` is the catalog as it was. */
  offerChanged(before: OfferCatalog): void;
  /** A resource the gateway subscribed to changed (the upstream URI, as the server wrote it). */
  resourceUpdated(server: string, uri: string): void;
  /** A server's log message. */
  upstreamLog(server: string, params: LoggingMessageNotification["params"]): void;
}

export class UpstreamRegistry {
  readonly index: ToolIndex;
  readonly upstreams = new Map<string, Upstream>();
  /** REST APIs from the configuration's `openapi` block, called over HTTP. */
  readonly openApis = new Map<string, OpenApiUpstream>();
  readonly log: (line: string) => void;
  /** Namespaced names of the `alwaysLoad` tools, in configuration order. */
  readonly alwaysLoaded: string[] = [];
  private readonly options: GatewayOptions;
  private readonly events: RegistryEvents;
  /** Each server's resources, templates and prompts (from its manifest until it lists them), in configuration order. */
  private readonly serverOffers = new Map<string, UpstreamOffer>();
  private offerCatalog = new OfferCatalog({}, new Map());
  private readonly routes = new Map<string, Route>();
  private readonly namesByServer = new Map<string, string[]>();
  /** The last tool list each server gave, so a review decision can re-apply it. */
  private readonly listed = new Map<string, McpTool[]>();
  private pinBook?: PinBook;
  private decisionWatch?: NodeJS.Timeout;
  private firstAttempts: Promise<void> = Promise.resolve();
  private savingSnapshot: Promise<void> = Promise.resolve();

  constructor(options: GatewayOptions, events: RegistryEvents) {
    this.options = options;
    this.events = events;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.index = options.catalog ?? new ToolIndex();
  }

  /**
   * Starts the upstreams it must (all with `eager` or without a manifest store; otherwise only those without a
   * matching manifest); resolves when each of those has made its first attempt, unless `waitForUpstreams` is false.
   */
  async start(): Promise<void> {
    const options = this.options;
    // First, so that a bad document or a missing credential stops the start before any child process runs.
    await this.startOpenApis(Object.entries(options.config?.openapi ?? {}));
    const servers = Object.entries(options.config?.mcpServers ?? {});
    if (options.pins) {
      const { store, pollMs, ...pinOptions } = options.pins;
      const trustNewTools = (server: string) => options.config?.mcpServers[server]?.trust === "new-tools";
      // Another replica may pin a different first definition at the same moment: then serve what it pinned.
      const onServedChange = (server: string) => this.setServerTools(server, this.listed.get(server) ?? []);
      this.pinBook = await PinBook.open(store, this.owner, { ...pinOptions, trustNewTools, log: this.log, onServedChange });
      if (pollMs) this.watchDecisions(this.pinBook, pollMs);
    }
    for (const [name, config] of servers) this.upstreams.set(name, this.createUpstream(name, config));
    for (const [name] of servers) this.serverOffers.set(name, EMPTY_OFFER);
    for (const [name, config] of servers) this.alwaysLoaded.push(...(config.alwaysLoad ?? []).map((tool) => namespacedName(name, tool)));
    const toStart = await this.serversToStart(servers);
    this.firstAttempts = Promise.all(toStart.map((name) => this.upstreams.get(name)!.start())).then(() => undefined);
    if (options.waitForUpstreams ?? true) await this.firstAttempts;
  }

  /** Resolves once every upstream started at launch has made its first connection attempt (ready or failed). */
  whenStarted(): Promise<void> {
    return this.firstAttempts;
  }

  /** Where a namespaced tool lives (undefined for static catalog tools and unknown names). */
  route(name: string): Route | undefined {
    return this.routes.get(name);
  }

  /** The MCP server or OpenAPI source that runs a route's tool. */
  runnerOf(route: Route): Pick<Upstream, "callTool"> {
    return this.upstreams.get(route.server) ?? this.openApis.get(route.server)!;
  }

  /** The resources, templates and prompts of every server, as the client sees them. */
  get offers(): OfferCatalog {
    return this.offerCatalog;
  }

  /** A configured MCP server (undefined for an unknown name). */
  upstream(server: string): Upstream | undefined {
    return this.upstreams.get(server);
  }

  /** When `name` belongs to a server that is down, says so (a server stopped while idle is not down: calls start it). */
  outageFor(name: string): string | undefined {
    for (const upstream of this.upstreams.values()) {
      if (upstream.state !== "ready" && upstream.state !== "stopped" && name.startsWith(serverPrefix(upstream.name))) {
        return `${name} cannot be used now: ${upstream.describeOutage()}. Its tools come back when it does; try again later.`;
      }
    }
    return undefined;
  }

  /** The upstream definitions held for review (empty when definitions are not pinned). */
  held(): HeldTool[] {
    return this.pinBook?.held() ?? [];
  }

  /** Re-reads the pins from the store (decisions made elsewhere) and serves what they say now. */
  async reloadPins(): Promise<void> {
    if (!this.pinBook) return;
    await this.pinBook.reload();
    for (const [server, tools] of this.listed) this.setServerTools(server, tools);
  }

  /**
   * Polls the store for review decisions taken elsewhere (`toolsearch mcp review` in another process, another
   * replica) and serves them: the pins are read again and every server's last listing re-applied, which refreshes
   * the sessions (with `list_changed` where their tool lists change). A poll, not the change feed: SQLite announces
   * commits only inside the process that made them.
   */
  private watchDecisions(book: PinBook, pollMs: number): void {
    let busy = false;
    let failing = false;
    this.decisionWatch = setInterval(() => {
      if (busy) return;
      busy = true;
      book.changedElsewhere()
        .then(async (changed) => {
          if (changed) await this.reloadPins();
          failing = false;
        })
        .catch((error: unknown) => {
          // Told once per outage, not every poll.
          if (!failing) this.log(`toolsearch mcp: could not look for review decisions: ${error instanceof Error ? error.message : String(error)}`);
          failing = true;
        })
        .finally(() => (busy = false));
    }, pollMs);
    this.decisionWatch.unref();
  }

  /** Approves or rejects held definitions; the approved ones are served from now on. */
  async decide(decisions: ReviewDecisions): Promise<HeldTool[]> {
    if (!this.pinBook) throw new ToolsearchError("invalid_option", "This gateway does not pin tool definitions, so nothing is held for review.");
    for (const server of await this.pinBook.decide(decisions)) this.setServerTools(server, this.listed.get(server) ?? []);
    return this.held();
  }

  /** Stops every upstream (stdio children are terminated), after the launch snapshot being saved is written. */
  async close(): Promise<void> {
    clearInterval(this.decisionWatch);
    await this.savingSnapshot;
    await this.pinBook?.whenSaved();
    await Promise.all([...this.upstreams.values()].map((u) => u.close()));
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
    const options = { log: this.log, ...this.options.upstream, redact: redactor(secrets), auth: this.oauthOf(name, config) };
    const upstream: Upstream = new Upstream(name, config, (server, tools, source) => {
      this.setServerTools(server, tools);
      if (source === "listed") this.saveManifest(server, hash, tools, upstream.offer);
    }, options, {
      onOffer: (server, offer, source) => {
        this.setServerOffer(server, offer);
        // On a start the tools follow and save the manifest; a later `list_changed` saves it here.
        if (source === "listed" && upstream.state === "ready") this.saveManifest(server, hash, upstream.tools, offer);
      },
      onResourceUpdated: (server, uri) => this.events.resourceUpdated(server, uri),
      onLog: (server, params) => this.events.upstreamLog(server, params),
    });
    return upstream;
  }

  /** OAuth for a remote server, when there is a store to keep its tokens in (SPEC §15). */
  private oauthOf(name: string, config: ServerConfig): UpstreamAuth | undefined {
    const store = this.options.secrets ?? (this.options.manifests && "getSecret" in this.options.manifests ? (this.options.manifests as unknown as SecretStore) : undefined);
    if (isStdioConfig(config) || !store) return undefined;
    const collection = /^collection:(.+)$/.exec(this.owner)?.[1];
    const where = this.options.configFile ? `--config ${this.options.configFile}` : collection ? `--collection ${collection} --store <the service's store>` : undefined;
    return upstreamAuth(store, this.owner, name, config.oauth, where);
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
    for (const [server, offer] of plan.offers) this.serverOffers.set(server, offer as UpstreamOffer);
    this.rebuildOffers();
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
    // Pins decide what is served of the manifests' tools: a snapshot is only good for the pins it was taken with.
    const key = snapshots ? launchKey(this.owner, known) + (this.pinBook ? `:${this.pinBook.digest()}` : "") : "";
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
    for (const [server, , listed] of known) {
      const names: string[] = [];
      const tools = this.pinBook ? this.pinnedTools(server, listed as McpTool[]) : listed;
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

  private saveManifest(server: string, hash: string, tools: McpTool[], offer: UpstreamOffer): void {
    this.options.manifests?.putManifest({ owner: this.owner, server, configHash: hash, tools, offer }).catch((error: unknown) => {
      this.log(`toolsearch mcp: could not save the manifest of "${server}": ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /**
   * What the pins let through of a server's listing; remembered for later decisions. Pins record what the upstream
   * offers, before the server block's allow/deny filter (applied by `setServerTools`): widening the filter then serves
   * a tool at once instead of holding it as "new", which would make the operator's own edit look like a rug pull.
   */
  private pinnedTools(server: string, listed: McpTool[]): McpTool[] {
    this.listed.set(server, listed);
    return this.pinBook!.apply(server, listed);
  }

  /**
   * Replaces the indexed tools of one server (called on connect, `list_changed`, and with [] when it goes down);
   * returns the positions in `tools` of those indexed. What it skips is told to `note`.
   */
  private setServerTools(server: string, listed: McpTool[], note = this.log): number[] {
    const config = this.options.config?.mcpServers[server];
    const keep = toolFilter(config?.tools);
    // An empty list means the server went down: its pins stay as they are. Positions are then in the served list.
    const tools = this.pinBook && listed.length ? this.pinnedTools(server, listed) : listed;
    for (const name of this.namesByServer.get(server) ?? []) {
      this.index.remove(name);
      this.routes.delete(name);
    }
    const names: string[] = [];
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
    this.events.toolsChanged(server);
    return indexed;
  }

  /** Replaces a server's resources, templates and prompts (on start, `list_changed`, and empty when it goes down). */
  private setServerOffer(server: string, offer: UpstreamOffer): void {
    this.serverOffers.set(server, offer);
    const before = this.rebuildOffers();
    this.events.offerChanged(before);
  }

  /** Rebuilds the catalog from every server's offer; returns the one it replaced. */
  private rebuildOffers(): OfferCatalog {
    const before = this.offerCatalog;
    this.offerCatalog = new OfferCatalog(this.options.config?.mcpServers ?? {}, this.serverOffers);
    return before;
  }
}
