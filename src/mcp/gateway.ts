/**
 * The gateway: one small MCP tool surface in front of many MCP servers. Every upstream tool is indexed under its
 * namespaced name (`server__tool`) next to the tools of an optional static catalog; the client sees only
 * `search_tools`, `describe_tool`, `call_tool` (and `search_docs`/`read_doc` when documents are configured), and,
 * with `exposeFound`, the upstream tools its searches found.
 *
 * @example
 * ```ts
 * const gateway = await Gateway.start({ config: loadGatewayConfig("mcp.json") });
 * await serveStdio(gateway); // see transports.ts
 * ```
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolResult, CallToolRequestSchema, ListToolsRequestSchema, McpError, type Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import type { AnthropicTool } from "../catalog/tool.js";
import { ToolsearchError } from "../errors.js";
import { InputValidator } from "../execution/validate-input.js";
import type { DocumentIndex } from "../indexes/document-index.js";
import { ToolIndex } from "../indexes/tool-index.js";
import type { ToolSearchOptions } from "../indexes/tool-index-options.js";
import { handleDocsTool } from "../metatools/docs-tools.js";
import { DEFAULT_SEARCH_RESULTS, MAX_SEARCH_RESULTS, noToolGuidance } from "../metatools/tool-search.js";
import type { GatewayConfig } from "./config.js";
import { CALL_TOOL, DESCRIBE_TOOL, gatewayToolDefinitions, SEARCH_TOOLS } from "./meta-tools.js";
import { namespacedName, serverPrefix } from "./names.js";
import { Upstream, type UpstreamOptions } from "./upstream.js";

/** Everything the gateway serves. */
export interface GatewayOptions {
  /** Upstream MCP servers. */
  config?: GatewayConfig;
  /** Static tools (searchable and describable; they have no upstream, so `call_tool` refuses them). */
  catalog?: ToolIndex;
  /** A knowledge base: adds `search_docs` and `read_doc`. */
  docs?: DocumentIndex;
  /** Add the tools that searches find to the gateway's own `tools/list` (and notify `list_changed`). */
  exposeFound?: boolean;
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

const GATEWAY_INFO = { name: "toolsearch", version: "0.1.0" };

export class Gateway {
  readonly index: ToolIndex;
  readonly upstreams = new Map<string, Upstream>();
  private readonly options: GatewayOptions;
  private readonly log: (line: string) => void;
  private readonly routes = new Map<string, Route>();
  private readonly namesByServer = new Map<string, string[]>();
  private readonly exposed = new Map<string, McpTool>();
  private readonly sessions = new Set<Server>();
  private readonly validator = new InputValidator();
  private firstAttempts: Promise<void> = Promise.resolve();

  private constructor(options: GatewayOptions) {
    this.options = options;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.index = options.catalog ?? new ToolIndex();
  }

  /** Builds the gateway and starts every upstream; resolves when each has made its first attempt (ready or not). */
  static async start(options: GatewayOptions = {}): Promise<Gateway> {
    const gateway = new Gateway(options);
    const upstreamOptions = { log: gateway.log, ...options.upstream };
    for (const [name, config] of Object.entries(options.config?.mcpServers ?? {})) {
      gateway.upstreams.set(name, new Upstream(name, config, (server, tools) => gateway.setServerTools(server, tools), upstreamOptions));
    }
    gateway.firstAttempts = Promise.all([...gateway.upstreams.values()].map((u) => u.start())).then(() => undefined);
    if (options.waitForUpstreams ?? true) await gateway.firstAttempts;
    return gateway;
  }

  /** Resolves once every upstream has made its first connection attempt (ready or failed). */
  whenStarted(): Promise<void> {
    return this.firstAttempts;
  }

  /** The tools the gateway lists: its meta-tools, then any found tools exposed so far. */
  listTools(): McpTool[] {
    const meta = gatewayToolDefinitions({ docs: this.options.docs !== undefined }).map(toMcpTool);
    return [...meta, ...this.exposed.values()];
  }

  /** Runs one of the gateway's tools (a meta-tool, or an exposed upstream tool by its namespaced name). */
  async callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    // The first search must see every server that can start, not an empty index.
    await this.firstAttempts;
    try {
      switch (name) {
        case SEARCH_TOOLS:
          return await this.searchTools(args);
        case DESCRIBE_TOOL:
          return await this.describeTool(args);
        case CALL_TOOL:
          return await this.proxyCall(args.name, args.arguments);
      }
      if (this.options.docs) {
        const result = await handleDocsTool(this.options.docs, name, args);
        if (result) return { content: typeof result.content === "string" ? [text(result.content)] : result.content.map((b) => (b.type === "text" ? b : text(JSON.stringify(b)))), isError: result.isError };
      }
      if (this.exposed.has(name)) return await this.proxyCall(name, args);
      return failure(`Unknown tool ${JSON.stringify(name)}. This gateway offers ${this.listTools().map((t) => t.name).join(", ")}.`);
    } catch (error) {
      if (error instanceof ToolsearchError) return failure(error.message);
      throw error;
    }
  }

  /** A new MCP server session bound to this gateway (one per stdio connection or HTTP session). */
  createSession(): Server {
    const server = new Server(GATEWAY_INFO, {
      capabilities: { tools: { listChanged: true } },
      instructions: "Search first, then call: use search_tools to find the tool you need among all connected MCP servers, then call_tool with its name and arguments.",
    });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: this.listTools() }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => this.callTool(request.params.name, request.params.arguments ?? {}));
    this.sessions.add(server);
    server.onclose = () => this.sessions.delete(server);
    return server;
  }

  /** Closes every upstream (stdio children are terminated) and every session. */
  async close(): Promise<void> {
    await Promise.all([...this.upstreams.values()].map((u) => u.close()));
    await Promise.all([...this.sessions].map((s) => s.close().catch(() => undefined)));
  }

  /** Replaces the indexed tools of one server (called on connect, `list_changed`, and with [] when it goes down). */
  private setServerTools(server: string, tools: McpTool[]): void {
    for (const name of this.namesByServer.get(server) ?? []) {
      this.index.remove(name);
      this.routes.delete(name);
    }
    const names: string[] = [];
    for (const tool of tools) {
      const name = namespacedName(server, tool.name);
      if (this.index.get(name)) {
        this.log(`toolsearch mcp: skipped ${server}/${tool.name}: the name ${name} is already taken`);
        continue;
      }
      try {
        this.index.add({ ...tool, name, category: server });
      } catch (error) {
        const code = error instanceof ToolsearchError ? ` (${error.code})` : "";
        this.log(`toolsearch mcp: skipped ${server}/${tool.name}${code}: ${(error as Error).message}`);
        continue;
      }
      this.routes.set(name, { server, tool: tool.name, definition: { ...tool, name } });
      names.push(name);
    }
    this.namesByServer.set(server, names);
    this.refreshExposed();
  }

  /** Drops exposed tools that are gone and updates the definitions of those that changed. */
  private refreshExposed(): void {
    let changed = false;
    for (const name of [...this.exposed.keys()]) {
      const route = this.routes.get(name);
      if (!route) changed = this.exposed.delete(name) || changed;
      else if (route.definition !== this.exposed.get(name)) {
        this.exposed.set(name, route.definition);
        changed = true;
      }
    }
    if (changed) this.notifyToolsChanged();
  }

  private notifyToolsChanged(): void {
    for (const session of this.sessions) void session.sendToolListChanged().catch(() => undefined);
  }

  private async searchTools(args: Record<string, unknown>): Promise<CallToolResult> {
    const engine = args.engine === undefined ? "bm25" : args.engine;
    const field = engine === "regex" ? "pattern or query" : "query";
    const query = typeof args.query === "string" ? args.query.trim() : "";
    if (!query) return failure(`${SEARCH_TOOLS} needs a query, e.g. {"query": "write file"} (with engine "regex", a pattern such as "file|directory").`);
    const limit = args.limit === undefined ? DEFAULT_SEARCH_RESULTS : args.limit;
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_RESULTS) {
      return failure(`limit must be a whole number from 1 to ${MAX_SEARCH_RESULTS} (got ${JSON.stringify(args.limit)}).`);
    }
    if (typeof engine !== "string") return failure(`engine must be a string such as "bm25" or "regex".`);
    let hits;
    try {
      hits = await this.index.search(query, { engine: engine as ToolSearchOptions["engine"], limit });
    } catch (error) {
      if (error instanceof ToolsearchError) return failure(`${error.message} Fix the ${field} and search again.`);
      throw error;
    }
    if (hits.length === 0) return { content: [text(noToolGuidance(this.index, query, engine === "regex" ? "regex" : "bm25"))] };
    const results = hits.map((hit) => {
      const tool = this.index.get(hit.name)!;
      const route = this.routes.get(hit.name);
      return {
        name: hit.name,
        description: hit.description,
        ...(route ? { server: route.server } : { server: null }),
        inputSchema: tool.inputSchema,
      };
    });
    if (this.options.exposeFound) this.expose(results.map((r) => r.name));
    const how = this.options.exposeFound
      ? `Call one with ${CALL_TOOL} {"name", "arguments"}, or directly: the upstream tools found are now in your tool list.`
      : `Call one with ${CALL_TOOL} {"name": <name>, "arguments": {…}} matching its inputSchema.`;
    return { content: [text(JSON.stringify({ results, next: how }))] };
  }

  private expose(names: string[]): void {
    let added = false;
    for (const name of names) {
      const route = this.routes.get(name);
      if (!route || this.exposed.has(name)) continue;
      this.exposed.set(name, route.definition);
      added = true;
    }
    if (added) this.notifyToolsChanged();
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
    const upstream = this.upstreams.get(route.server)!;
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

  /** When `name` belongs to a server that is down, says so. */
  private outageFor(name: string): string | undefined {
    for (const upstream of this.upstreams.values()) {
      if (upstream.state !== "ready" && name.startsWith(serverPrefix(upstream.name))) {
        return `${name} cannot be used now: ${upstream.describeOutage()}. Its tools come back when it does; try again later.`;
      }
    }
    return undefined;
  }
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
