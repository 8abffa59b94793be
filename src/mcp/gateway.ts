/**
 * The gateway: one small MCP surface in front of many MCP servers. Every upstream tool is indexed under its
 * namespaced name (`server__tool`) next to the tools of an optional static catalog; the client sees only
 * `search_tools`, `describe_tool`, `call_tool` (and `search_docs`/`read_doc` when documents are configured), and,
 * with `exposeFound`, the upstream tools that session's searches found, plus each server's `alwaysLoad` tools.
 *
 * With a manifest store, a server whose configuration is unchanged since it last ran is searchable at once from its
 * manifest and started only by the first call to one of its tools (manifests.ts); `eager` starts every server.
 *
 * This class only wires the parts together: the upstream registry (registry.ts: lifecycle, manifests, routing), one
 * module per MCP surface (surfaces/), and the table of open sessions (sessions.ts).
 *
 * @example
 * ```ts
 * const gateway = await Gateway.start({ config: loadGatewayConfig("mcp.json") });
 * await serveStdio(gateway); // see transports.ts
 * ```
 */
import { randomUUID } from "node:crypto";
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { DocumentIndex } from "../indexes/document-index.js";
import type { ToolIndex } from "../indexes/tool-index.js";
import type { GatewayConfig } from "./config.js";
import type { ManifestStore } from "./manifests.js";
import type { UsageEvent } from "../store/types.js";
import type { OpenApiUpstream } from "./openapi-upstream.js";
import { UpstreamRegistry } from "./registry.js";
import { AjvJsonSchemaValidator, Server } from "./sdk.js";
import { type GatewaySession, Sessions, type ToolCallRecord } from "./sessions.js";
import type { ScreenMode } from "../trust/screen.js";
import { CompletionSurface } from "./surfaces/completion.js";
import { LoggingSurface } from "./surfaces/logging.js";
import { PromptsSurface } from "./surfaces/prompts.js";
import { ResourcesSurface } from "./surfaces/resources.js";
import type { Surface } from "./surfaces/surface.js";
import { ToolsSurface } from "./surfaces/tools.js";
import type { Upstream, UpstreamOptions } from "./upstream.js";
import type { SecretStore } from "../auth/upstream-oauth.js";
import type { HeldTool, PinOptions, PinStore, ReviewDecisions } from "../trust/pin-book.js";

export type { GatewaySession } from "./sessions.js";

/** Everything the gateway serves. */
export interface GatewayOptions {
  /** Upstream MCP servers. */
  config?: GatewayConfig;
  /** Static tools (searchable and describable; they have no upstream, so `call_tool` refuses them). */
  catalog?: ToolIndex;
  /** A knowledge base: adds `search_docs` and `read_doc`, and its documents as resources. */
  docs?: DocumentIndex;
  /** The knowledge base's name in its documents' resource URIs, `toolsearch://docs/{name}/{id}` (default `docs`). */
  docsCollection?: string;
  /** Add the tools a session's searches find to that session's `tools/list` (and notify it with `list_changed`). */
  exposeFound?: boolean;
  /**
   * Where manifests are kept (any `Store`). Without one nothing is remembered: every server starts at launch to list
   * its tools, and the idle stop (`upstream.idleStopMs`) still stops the unused ones.
   */
  manifests?: ManifestStore;
  /**
   * Pin each upstream tool's definition (SPEC §16): changed, new and flagged definitions are held for review and the
   * pinned ones keep being served. The store is shared by replicas and read again by `reloadPins`, and every
   * `pollMs` (default 0 = never) when a review decision was stored elsewhere (`toolsearch mcp review` in another
   * process): the sessions then see the decided definitions without a restart.
   */
  pins?: { store: PinStore; pollMs?: number } & Omit<PinOptions, "trustNewTools" | "log">;
  /** Whose manifests (and pins) these are (default `gateway`; the service uses `collection:<name>`). */
  owner?: string;
  /** Where OAuth tokens of remote servers are kept, sealed (default: `manifests`, when it is a full store). */
  secrets?: SecretStore;
  /** The configuration file, as `toolsearch mcp login NAME --config FILE` should name it. */
  configFile?: string;
  /** Start every server at launch, whatever the manifests say (the behaviour before manifests). */
  eager?: boolean;
  /** Where `${VAR}` in the configuration is looked up (default: the process's environment). */
  environment?: Record<string, string | undefined>;
  /** Timeouts and restart backoff of upstream servers. */
  upstream?: UpstreamOptions;
  /** One-line status messages (default: stderr). */
  log?: (line: string) => void;
  /**
   * Where the sessions' usage events go (SPEC §17): searches, loads (`describe_tool`, `select:`) and calls, each with
   * its session's id, never an argument value. The learned signal is the index's own (`ToolIndex.setLearned`), fed by
   * whoever records the events (the service's collections, or `StoreUsage` for `toolsearch mcp`).
   */
  usage?: GatewayUsage;
  /**
   * Wait in `start` until every upstream made its first attempt (default true). With false the gateway answers at
   * once and its tools wait for the first attempts instead, so a client connects without waiting for slow servers.
   */
  waitForUpstreams?: boolean;
  /**
   * What to do with upstream tool results, prompts and resources that hold text aimed at the model (SPEC §16,
   * src/trust/screen.ts): `warn` (default) flags them in `_meta`, `block` withholds them, `off` passes them
   * unscreened. A server's `"screenResults"` overrides it.
   */
  screenResults?: ScreenMode;
  /** Told about every upstream call of a session that has no `onCall` of its own (`toolsearch mcp`'s audit log). */
  onCall?: (call: ToolCallRecord) => void;
}

/** Where a gateway's usage events go: the collection they belong to, and a sink that keeps them. */
export interface GatewayUsage {
  /** The collection the events are recorded under (`GATEWAY_USAGE` for `toolsearch mcp`). */
  collection: string;
  /** Keeps the events (in the store, and in the learned signal); must not throw: usage is not worth failing a call. */
  record(events: UsageEvent[]): void;
}

/** The knowledge base's name in resource URIs when none is given (`toolsearch mcp --docs`). */
export const DEFAULT_DOCS_COLLECTION = "docs";

const GATEWAY_INFO = { name: "toolsearch", version: "0.1.0" };
/**
 * One JSON Schema validator for every session: the SDK otherwise builds a new Ajv per session, which was most of
 * what an idle HTTP session cost in memory. The gateway's sessions never ask clients for input (elicitation), the
 * one thing it validates, so sharing it changes no behaviour.
 */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

export class Gateway {
  private readonly registry: UpstreamRegistry;
  private readonly sessions = new Sessions();
  private readonly tools: ToolsSurface;
  private readonly resources: ResourcesSurface;
  /** Every surface, in the order their handlers are installed on a session. */
  private readonly surfaces: Surface[];

  private constructor(options: GatewayOptions) {
    const docsCollection = options.docsCollection ?? DEFAULT_DOCS_COLLECTION;
    this.registry = new UpstreamRegistry(options, {
      toolsChanged: (server) => this.tools.refresh(server),
      offerChanged: (before) => {
        this.resources.offersChanged(before);
        prompts.offersChanged(before);
      },
      resourceUpdated: (server, uri) => this.resources.resourceUpdated(server, uri),
      upstreamLog: (server, params) => logging.forward(server, params),
    });
    this.tools = new ToolsSurface(this.registry, this.sessions, { ...options, docsCollection });
    const screening = { config: options.config, screenResults: options.screenResults };
    this.resources = new ResourcesSurface(this.registry, this.sessions, { docs: options.docs, docsCollection, ...screening });
    const prompts = new PromptsSurface(this.registry, this.sessions, screening);
    const logging = new LoggingSurface(this.sessions);
    this.surfaces = [this.tools, this.resources, prompts, new CompletionSurface(this.registry), logging];
  }

  /**
   * Builds the gateway and starts the upstreams it must (all with `eager` or without a manifest store; otherwise only
   * those without a matching manifest); resolves when each of those has made its first attempt (ready or not).
   */
  static async start(options: GatewayOptions = {}): Promise<Gateway> {
    const gateway = new Gateway(options);
    await gateway.registry.start();
    return gateway;
  }

  /** Every tool the gateway can search: the static catalog's and the upstreams' (namespaced). */
  get index(): ToolIndex {
    return this.registry.index;
  }

  /** The upstream MCP servers, by configured name. */
  get upstreams(): ReadonlyMap<string, Upstream> {
    return this.registry.upstreams;
  }

  /** REST APIs from the configuration's `openapi` block, called over HTTP. */
  get openApis(): ReadonlyMap<string, OpenApiUpstream> {
    return this.registry.openApis;
  }

  /** Resolves once every upstream has made its first connection attempt (ready or failed). */
  whenStarted(): Promise<void> {
    return this.registry.whenStarted();
  }

  /** The tools the gateway lists: its meta-tools, the `alwaysLoad` tools, then the tools `session` exposed so far. */
  listTools(session?: GatewaySession): McpTool[] {
    return this.tools.listTools(session);
  }

  /** Runs one of the gateway's tools (a meta-tool, or an upstream tool listed to `session`, by its namespaced name). */
  callTool(name: string, args: Record<string, unknown>, session?: GatewaySession): Promise<CallToolResult> {
    return this.tools.callTool(name, args, session);
  }

  /**
   * A new MCP server session bound to this gateway (one per stdio connection or HTTP session). `visible` limits the
   * tools it sees (a hidden tool is absent from every answer); `onCall` hears of each upstream call it makes.
   */
  createSession(options: Pick<GatewaySession, "visible" | "onCall"> = {}): Server {
    const capabilities = Object.assign({}, ...this.surfaces.map((surface) => surface.capabilities));
    const server = new Server(GATEWAY_INFO, {
      capabilities,
      jsonSchemaValidator: SHARED_VALIDATOR,
      instructions: "Search first, then call: use search_tools to find the tool you need among all connected MCP servers, then call_tool with its name and arguments.",
    });
    this.attach({ server, id: randomUUID(), exposed: new Map(), subscriptions: new Set(), ...options });
    return server;
  }

  /** Points a session's requests at this gateway and tracks it here. */
  private attach(session: GatewaySession): void {
    for (const surface of this.surfaces) surface.register(session);
    this.sessions.add(session);
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
    for (const session of this.sessions) {
      const before = this.listTools(session);
      this.sessions.release(session);
      next.attach(session);
      next.tools.adopt(session, before);
      void next.resources.adopt(session);
    }
  }

  /** Upstream tool definitions held for review, with what is served now (SPEC §16). */
  held(): HeldTool[] {
    return this.registry.held();
  }

  /** Approves or rejects held definitions by namespaced name; returns what is still held. */
  decide(decisions: ReviewDecisions): Promise<HeldTool[]> {
    return this.registry.decide(decisions);
  }

  /** Reads the pins again from the store (a decision taken by another replica or by `toolsearch mcp review`). */
  reloadPins(): Promise<void> {
    return this.registry.reloadPins();
  }

  /** Number of open sessions. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Closes every upstream (stdio children are terminated) and every session. */
  async close(): Promise<void> {
    await this.registry.close();
    await this.sessions.closeAll();
  }
}
