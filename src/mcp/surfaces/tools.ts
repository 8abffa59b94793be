/**
 * The gateway's tools surface: `tools/list` and `tools/call` of every session. The client sees the meta-tools
 * (`search_tools`, `describe_tool`, `call_tool`, and `search_docs`/`read_doc` when documents are configured), each
 * server's `alwaysLoad` tools, and with `exposeFound` the upstream tools that session's own searches found.
 */
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { AnthropicTool } from "../../catalog/tool.js";
import { ToolsearchError } from "../../errors.js";
import { InputValidator } from "../../execution/validate-input.js";
import type { ToolSearchOptions } from "../../indexes/tool-index-options.js";
import { type ToolCatalog, ToolView } from "../../indexes/tool-view.js";
import { type DocsToolResult, handleDocsTool } from "../../metatools/docs-tools.js";
import { MAX_SELECT_NAMES, parseSelect, resolveSelect, unknownNamesNote } from "../../metatools/select.js";
import { DEFAULT_SEARCH_RESULTS, MAX_SEARCH_RESULTS, noToolGuidance } from "../../metatools/tool-search.js";
import { docResource } from "../doc-resources.js";
import type { GatewayOptions } from "../gateway.js";
import { CALL_TOOL, DESCRIBE_TOOL, gatewayToolDefinitions, SEARCH_TOOLS } from "../meta-tools.js";
import { serverPrefix } from "../names.js";
import type { UpstreamRegistry } from "../registry.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from "../sdk.js";
import { type GatewaySession, notifyToolsChanged, type Sessions, type ToolCallRecord } from "../sessions.js";
import type { Surface } from "./surface.js";
import type { UsageEvent } from "../../store/types.js";
import { type ScreenOutcome, screenCall } from "../../trust/screen.js";
import { screenModeOf } from "./screening.js";

/** Options of the tools surface: a knowledge base (with its name in resource URIs), `exposeFound` and `usage`. */
export type ToolsSurfaceOptions = Pick<GatewayOptions, "docs" | "exposeFound" | "usage" | "config" | "screenResults" | "onCall"> & { docsCollection: string };

export class ToolsSurface implements Surface {
  readonly capabilities = { tools: { listChanged: true } };
  private readonly registry: UpstreamRegistry;
  private readonly sessions: Sessions;
  private readonly options: ToolsSurfaceOptions;
  private readonly validator = new InputValidator();

  constructor(registry: UpstreamRegistry, sessions: Sessions, options: ToolsSurfaceOptions) {
    this.registry = registry;
    this.sessions = sessions;
    this.options = options;
  }

  register(session: GatewaySession): void {
    const { server } = session;
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: this.listTools(session) }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => this.callTool(request.params.name, request.params.arguments ?? {}, session));
  }

  /**
   * Takes over a session from another gateway's tools surface: exposed tools this registry lacks are dropped, the
   * others get this registry's definitions, and the session is notified when its list differs from `before`.
   */
  adopt(session: GatewaySession, before: McpTool[]): void {
    for (const name of [...session.exposed.keys()]) {
      const route = this.registry.route(name);
      if (route) session.exposed.set(name, route.definition);
      else session.exposed.delete(name);
    }
    if (JSON.stringify(this.listTools(session)) !== JSON.stringify(before)) notifyToolsChanged(session);
  }

  /** The tools the gateway lists: its meta-tools, the `alwaysLoad` tools, then the tools `session` exposed so far. */
  listTools(session?: GatewaySession): McpTool[] {
    const meta = gatewayToolDefinitions({ docs: this.options.docs !== undefined }).map(toMcpTool);
    const alwaysLoaded = this.registry.alwaysLoaded;
    const always = alwaysLoaded.filter((name) => sees(session, name)).flatMap((name) => this.registry.route(name)?.definition ?? []);
    const exposed = [...(session?.exposed.values() ?? [])].filter((tool) => !alwaysLoaded.includes(tool.name) && sees(session, tool.name));
    return [...meta, ...always, ...exposed];
  }

  /** Runs one of the gateway's tools (a meta-tool, or an upstream tool listed to `session`, by its namespaced name). */
  async callTool(name: string, args: Record<string, unknown>, session?: GatewaySession): Promise<CallToolResult> {
    // The first search must see every server that can start, not an empty index.
    await this.registry.whenStarted();
    try {
      switch (name) {
        case SEARCH_TOOLS:
          return await this.searchTools(args, session);
        case DESCRIBE_TOOL:
          return await this.describeTool(args, session);
        case CALL_TOOL:
          return await this.proxyCall(args.name, args.arguments, session);
      }
      if (this.options.docs) {
        const result = await handleDocsTool(this.options.docs, name, args);
        if (result) return this.docsResult(result);
      }
      if ((session?.exposed.has(name) || this.registry.alwaysLoaded.includes(name)) && sees(session, name)) return await this.proxyCall(name, args, session);
      return failure(`Unknown tool ${JSON.stringify(name)}. This gateway offers ${this.listTools(session).map((t) => t.name).join(", ")}.`);
    } catch (error) {
      if (error instanceof ToolsearchError) return failure(error.message);
      throw error;
    }
  }

  /** A docs tool's answer as MCP content; the articles a search found are also `resource_link` blocks. */
  private docsResult(result: DocsToolResult): CallToolResult {
    const blocks = typeof result.content === "string" ? [text(result.content)] : result.content.map((b) => (b.type === "text" ? b : text(JSON.stringify(b))));
    const docs = this.options.docs!;
    const links = (result.found ?? []).flatMap((id) => {
      const document = docs.get(id);
      return document ? [{ type: "resource_link" as const, ...docResource(this.options.docsCollection, document) }] : [];
    });
    return { content: [...blocks, ...links], isError: result.isError };
  }

  /**
   * In every session, drops exposed tools that are gone and updates the definitions of those that changed. An
   * `alwaysLoad` tool is in every session's list, so any change to one notifies them all.
   */
  refresh(server?: string): void {
    const alwaysChanged = server !== undefined && this.registry.alwaysLoaded.some((name) => name.startsWith(serverPrefix(server)));
    for (const session of this.sessions) {
      let changed = alwaysChanged;
      for (const [name, definition] of [...session.exposed]) {
        const route = this.registry.route(name);
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
    const index = this.catalog(session);
    let hits;
    try {
      hits = await index.search(query, { engine: engine as ToolSearchOptions["engine"], limit });
    } catch (error) {
      if (error instanceof ToolsearchError) return failure(`${error.message} Fix the ${field} and search again.`);
      throw error;
    }
    this.used(session, "search", hits.map((h) => h.name), query);
    if (hits.length === 0) return { content: [text(noToolGuidance(index, query, engine === "regex" ? "regex" : "bm25"))] };
    return this.foundTools(hits, session);
  }

  /** `select:a,b`: exactly the named tools; unknown names come back with their closest names. */
  private selectTools(names: string[], session?: GatewaySession): CallToolResult {
    if (names.length === 0 || names.length > MAX_SELECT_NAMES) return failure(`A select query names the tools to load, e.g. "select:filesystem__read_text_file" (at most ${MAX_SELECT_NAMES} names).`);
    const index = this.catalog(session);
    const selection = resolveSelect(names, index.names());
    const note = unknownNamesNote(selection);
    if (selection.found.length === 0) return { content: [text(`${note} Search by keywords if none of these is what you need.`)] };
    this.used(session, "load", selection.found);
    return this.foundTools(selection.found.map((name) => ({ name, description: index.get(name)!.description })), session, note);
  }

  private foundTools(found: { name: string; description: string }[], session?: GatewaySession, note = ""): CallToolResult {
    const results = found.map(({ name, description }) => {
      const tool = this.registry.index.get(name)!;
      const route = this.registry.route(name);
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
      const route = this.registry.route(name);
      if (!route || session.exposed.has(name)) continue;
      session.exposed.set(name, route.definition);
      added = true;
    }
    if (added) notifyToolsChanged(session);
  }

  private async describeTool(args: Record<string, unknown>, session?: GatewaySession): Promise<CallToolResult> {
    const name = typeof args.name === "string" ? args.name.trim() : "";
    if (!name) return failure(`${DESCRIBE_TOOL} needs a name from ${SEARCH_TOOLS} results, e.g. {"name": "filesystem__read_text_file"}.`);
    const tool = this.catalog(session).get(name);
    if (!tool) return failure(this.unavailable(name, session));
    this.used(session, "load", [name]);
    const route = this.registry.route(name);
    const definition = route
      ? { ...route.definition, server: route.server }
      : { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, server: null };
    return { content: [text(JSON.stringify(definition))] };
  }

  /** `call_tool`: validates the arguments against the upstream tool's schema, then proxies the call (told to `onCall`). */
  private async proxyCall(rawName: unknown, rawArguments: unknown, session?: GatewaySession): Promise<CallToolResult> {
    if (typeof rawName !== "string" || !rawName.trim()) {
      return failure(`${CALL_TOOL} needs "name": a tool name from ${SEARCH_TOOLS} results, and "arguments": an object matching its inputSchema.`);
    }
    const name = rawName.trim();
    const started = performance.now();
    const report = (outcome: ToolCallRecord["outcome"], screen?: ScreenOutcome) => {
      // A refused call names a tool the caller may not see or called wrongly: nothing to learn, nothing to keep. A
      // blocked one never reached the model, so usage learning counts it as failed, not as a search that led somewhere.
      if (outcome !== "refused") this.used(session, "call", [name], undefined, outcome === "ok" ? "ok" : "error");
      const onCall = session?.onCall ?? this.options.onCall;
      if (!onCall) return;
      const argumentBytes = Buffer.byteLength(JSON.stringify(rawArguments ?? {}) ?? "");
      onCall({ tool: name, outcome, durationMs: performance.now() - started, argumentBytes, arguments: rawArguments ?? {}, ...(screen ? { screen } : {}) });
    };
    const route = sees(session, name) ? this.registry.route(name) : undefined;
    if (!route) {
      report("refused");
      return failure(this.whyNotCallable(name, session));
    }
    const check = this.validator.validate(name, route.definition.inputSchema as Record<string, unknown>, rawArguments ?? {});
    if (!check.ok) {
      report("refused");
      return failure(check.message.replace(`call ${name} again`, `call ${CALL_TOOL} again`));
    }
    try {
      const upstream = await this.registry.runnerOf(route).callTool(route.tool, check.input);
      const { result, outcome } = screenCall(upstream, screenModeOf(this.options, route.server), name);
      report(outcome?.action === "blocked" ? "blocked" : upstream.isError ? "error" : "ok", outcome);
      return result;
    } catch (error) {
      report("failed");
      if (error instanceof McpError) return failure(`upstream server "${route.server}" refused ${route.tool}: ${error.message}`);
      throw error;
    }
  }

  /**
   * Tells the usage sink what a session did (SPEC §17): the query of a search, the tools it found, loaded or called,
   * and a call's outcome; never an argument value. Only tools the session may see reach here.
   */
  private used(session: GatewaySession | undefined, kind: UsageEvent["kind"], tools: string[], query?: string, outcome?: UsageEvent["outcome"]): void {
    const usage = this.options.usage;
    if (!usage || !session) return;
    const event: UsageEvent = { collection: usage.collection, session: session.id, kind, tools, at: new Date().toISOString() };
    if (query !== undefined) event.query = query;
    if (outcome !== undefined) event.outcome = outcome;
    usage.record([event]);
  }

  /** The tools a session may search and describe: all of them, or its caller's view. */
  private catalog(session?: GatewaySession): ToolCatalog {
    return session?.visible ? new ToolView(this.registry.index, session.visible) : this.registry.index;
  }

  /** Why a tool cannot be described: a hidden one is unknown (no outage of its server may hint that it exists). */
  private unavailable(name: string, session?: GatewaySession): string {
    return (sees(session, name) ? this.registry.outageFor(name) : undefined) ?? this.unknownTool(name, session);
  }

  private whyNotCallable(name: string, session?: GatewaySession): string {
    if (name === SEARCH_TOOLS || name === DESCRIBE_TOOL || name === CALL_TOOL) return `${name} is one of the gateway's own tools: call it directly, not through ${CALL_TOOL}.`;
    if (this.catalog(session).get(name)) return `${name} is in the static catalog only: no connected MCP server runs it, so it cannot be called here.`;
    return this.unavailable(name, session);
  }

  private unknownTool(name: string, session?: GatewaySession): string {
    const near = this.catalog(session).closestNames(name);
    const hint = near.length ? ` Did you mean: ${near.join(", ")}?` : "";
    return `Unknown tool ${JSON.stringify(name)}.${hint} Use ${SEARCH_TOOLS} to find tools and pass a name exactly as it returns it.`;
  }
}

/** Whether a session's caller may see a tool. */
function sees(session: GatewaySession | undefined, name: string): boolean {
  return session?.visible?.accept(name) ?? true;
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
