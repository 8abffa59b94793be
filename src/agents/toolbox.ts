/**
 * The shape-neutral core of every agent loop: which tools the model sees at the start (meta-tools, always-loaded
 * tools), which stay deferred, and what happens when the model calls a tool (meta-tool handlers, validated catalog
 * tools). The Anthropic and OpenAI adapters only translate this to their wire formats; the stats are counted here so
 * they mean the same in both.
 */
import type { AnthropicTool, Tool } from "../catalog/tool.js";
import { ToolsearchError } from "../errors.js";
import { runTool, type ToolCallStatus, type ToolHandlers } from "../execution/run-tool.js";
import { InputValidator } from "../execution/validate-input.js";
import type { DocumentIndex } from "../indexes/document-index.js";
import type { ToolIndex } from "../indexes/tool-index.js";
import { describeToolTool } from "../metatools/describe-tool.js";
import { buildToolDirectory, type ToolDirectoryOptions } from "../metatools/directory.js";
import { type DocsToolsOptions, handleDocsTool, readDocDefinition, searchDocsDefinition } from "../metatools/docs-tools.js";
import { type ToolSearchEngine, toolSearchTool } from "../metatools/tool-search.js";
import { type MetaTool, type MetaToolResult, referencedTools } from "../metatools/types.js";

/**
 * How the model finds tools:
 * - `search`: a `tool_search` meta-tool (our engines) answers with references to deferred tools;
 * - `directory`: the system prompt lists every tool; `describe_tool` returns one definition and makes it callable;
 * - `server`: Anthropic's own server-side tool search over the deferred catalog.
 */
export type ToolMode = "search" | "directory" | "server";

/** Options of a `Toolbox`: one place for everything the loops share. */
export interface ToolboxOptions {
  /** Default `search`. */
  mode?: ToolMode;
  /** Engine behind `tool_search` (default `bm25`; `regex` makes its input a `pattern`). */
  engine?: ToolSearchEngine;
  /** Results per `tool_search` when the model gives no limit (default 5, at most 10). */
  searchLimit?: number;
  /** What the catalog holds, for the `tool_search` description. */
  about?: string;
  /** Catalog tools sent in full from the first turn (never deferred). */
  alwaysLoad?: string[];
  /** Handlers of catalog tools, by name. */
  handlers?: ToolHandlers;
  /** A knowledge base: adds the `search_docs` and `read_doc` meta-tools. */
  docs?: DocumentIndex;
  /** Options of the knowledge tools (description, page size, answer format). */
  docsOptions?: DocsToolsOptions;
  /** Further meta-tools of your own (never deferred). */
  metaTools?: MetaTool[];
  /** Milliseconds before a handler is given up on (default 30 000). */
  timeoutMs?: number;
  /** Options of the directory block (directory mode). */
  directory?: ToolDirectoryOptions;
}

/** What happened in a run, counted the same way by every adapter. */
export interface AgentStats {
  /** Model requests made. */
  iterations: number;
  /** `tool_search` calls (or server-side searches in server mode). */
  searches: number;
  /** `describe_tool` calls. */
  describes: number;
  /** `search_docs` and `read_doc` calls. */
  docSearches: number;
  docReads: number;
  /** Distinct catalog tools made callable by searches or descriptions. */
  toolsLoaded: number;
  loadedTools: string[];
  /** Calls of catalog tools (whatever their outcome). */
  toolCalls: number;
  /** Calls refused because their input did not match the schema (meta-tools included). */
  validationErrors: number;
  /** Other failed calls: unknown tool, no handler, exception, timeout. */
  toolErrors: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
}

/** The result of one call, before an adapter puts it on the wire. */
export interface CallResult extends MetaToolResult {
  status: ToolCallStatus;
  /** Catalog tools this call made callable. */
  loaded: string[];
}

export function emptyStats(): AgentStats {
  return {
    iterations: 0, searches: 0, describes: 0, docSearches: 0, docReads: 0, toolsLoaded: 0, loadedTools: [],
    toolCalls: 0, validationErrors: 0, toolErrors: 0, inputTokens: 0, outputTokens: 0,
    cacheReadInputTokens: 0, cacheCreationInputTokens: 0,
  };
}

export class Toolbox {
  readonly index: ToolIndex;
  readonly mode: ToolMode;
  readonly stats: AgentStats = emptyStats();
  private readonly options: ToolboxOptions;
  private readonly metaTools = new Map<string, MetaTool>();
  private readonly alwaysLoad: Set<string>;
  private readonly loaded = new Set<string>();
  private readonly validator = new InputValidator();

  constructor(index: ToolIndex, options: ToolboxOptions = {}) {
    this.index = index;
    this.options = options;
    this.mode = options.mode ?? "search";
    this.alwaysLoad = new Set(options.alwaysLoad ?? []);
    for (const name of this.alwaysLoad) index.require(name);
    for (const tool of this.buildMetaTools()) {
      if (this.metaTools.has(tool.definition.name) || index.get(tool.definition.name)) {
        throw new ToolsearchError("request_invalid", `Tool name ${JSON.stringify(tool.definition.name)} is used twice (a meta-tool and another tool): rename one.`);
      }
      this.metaTools.set(tool.definition.name, tool);
    }
  }

  /** Definitions of the meta-tools, in a fixed order. */
  metaToolDefinitions(): AnthropicTool[] {
    return [...this.metaTools.values()].map((t) => t.definition);
  }

  /** Catalog tools sent in full from the start. */
  alwaysLoaded(): Tool[] {
    return [...this.alwaysLoad].map((name) => this.index.require(name));
  }

  /** Catalog tools that stay deferred until found, in catalog order. */
  deferred(): Tool[] {
    return this.index.list().filter((t) => !this.alwaysLoad.has(t.name));
  }

  /** Tools made callable so far, in the order they were found. */
  loadedTools(): Tool[] {
    return [...this.loaded].map((name) => this.index.get(name)).filter((t): t is Tool => t !== undefined);
  }

  /** The directory block for the system prompt (directory mode). Same catalog, same bytes. */
  directoryText(): string {
    return buildToolDirectory(this.index.list(), this.options.directory);
  }

  isMetaTool(name: string): boolean {
    return this.metaTools.has(name);
  }

  /** Records tools made available by someone else (Anthropic's server-side search). */
  markLoaded(names: string[]): void {
    for (const name of names) this.addLoaded(name);
  }

  /** Runs one call of a meta-tool or catalog tool. Never throws for anything the model did. */
  async call(call: { name: string; input: unknown; id?: string }): Promise<CallResult> {
    const meta = this.metaTools.get(call.name);
    if (meta) return this.callMetaTool(meta, call.input);
    this.stats.toolCalls++;
    const outcome = await runTool(call, this.index, this.options.handlers ?? {}, {
      timeoutMs: this.options.timeoutMs,
      validator: this.validator,
      unknownToolHint: this.findHint(),
    });
    this.count(outcome.status);
    return { content: outcome.content, isError: outcome.isError, status: outcome.status, loaded: [] };
  }

  private async callMetaTool(meta: MetaTool, input: unknown): Promise<CallResult> {
    if (meta.kind === "tool_search") this.stats.searches++;
    else if (meta.kind === "describe_tool") this.stats.describes++;
    else if (meta.kind === "search_docs") this.stats.docSearches++;
    else if (meta.kind === "read_doc") this.stats.docReads++;
    const check = this.validator.validate(meta.definition.name, meta.definition.input_schema, input ?? {});
    if (!check.ok) {
      this.count("invalid_input");
      return { content: check.message, isError: true, status: "invalid_input", loaded: [] };
    }
    let result: MetaToolResult;
    try {
      result = await meta.handle(check.input);
    } catch (error) {
      this.count("handler_error");
      return { content: `${meta.definition.name} failed: ${error instanceof Error ? error.message : String(error)}`, isError: true, status: "handler_error", loaded: [] };
    }
    const loaded = referencedTools(result.content).filter((name) => this.index.get(name));
    for (const name of loaded) this.addLoaded(name);
    return { ...result, status: result.isError ? "invalid_input" : "ok", loaded };
  }

  private addLoaded(name: string): void {
    if (this.alwaysLoad.has(name) || this.loaded.has(name)) return;
    this.loaded.add(name);
    this.stats.loadedTools.push(name);
    this.stats.toolsLoaded = this.loaded.size;
  }

  private count(status: ToolCallStatus): void {
    if (status === "invalid_input") this.stats.validationErrors++;
    else if (status !== "ok") this.stats.toolErrors++;
  }

  private findHint(): string {
    if (this.mode === "directory") return "Pick a name from the tool directory and call describe_tool first.";
    if (this.mode === "search") return "Use tool_search to find the right tool.";
    return "Search for the right tool first.";
  }

  private buildMetaTools(): MetaTool[] {
    const tools: MetaTool[] = [];
    const exclude = new Set(this.alwaysLoad);
    if (this.mode === "search") {
      tools.push(toolSearchTool(this.index, { engine: this.options.engine, defaultLimit: this.options.searchLimit, about: this.options.about, exclude }));
    } else if (this.mode === "directory") {
      tools.push(describeToolTool(this.index));
    }
    const docs = this.options.docs;
    if (docs) {
      const docsOptions = this.options.docsOptions ?? {};
      tools.push(
        { kind: "search_docs", definition: searchDocsDefinition(docsOptions), handle: async (input) => (await handleDocsTool(docs, "search_docs", input, docsOptions))! },
        { kind: "read_doc", definition: readDocDefinition(docsOptions), handle: async (input) => (await handleDocsTool(docs, "read_doc", input, docsOptions))! },
      );
    }
    tools.push(...(this.options.metaTools ?? []));
    return tools;
  }
}
