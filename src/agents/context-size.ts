/**
 * How much context a tool setup costs: the whole catalog sent as plain tools, against each mode's fixed setup (what
 * the model must read before it has found anything). Deferred tools are not counted: with `defer_loading` the API
 * keeps them out of the model's context until a search returns them.
 */
import type { ToolIndex } from "../indexes/tool-index.js";
import { describeToolDefinition } from "../metatools/describe-tool.js";
import { buildToolDirectory, type ToolDirectoryOptions } from "../metatools/directory.js";
import { type ToolSearchEngine, toolSearchDefinition } from "../metatools/tool-search.js";
import { SERVER_TOOL_SEARCH } from "./anthropic.js";

/**
 * Characters per token for the estimate. JSON tool definitions and English prose both land near 4 characters per
 * token with Claude's and OpenAI's tokenizers; the figure is an estimate, not a count.
 */
export const CHARS_PER_TOKEN = 4;

/** A size in characters and estimated tokens. */
export interface ContextSize {
  chars: number;
  tokens: number;
}

/** The report of `toolsearch context --json`. */
export interface ContextReport {
  tools: number;
  full: ContextSize;
  modes: { search: ContextSize; directory: ContextSize; server: ContextSize };
}

/** Options of the report. */
export interface ContextReportOptions {
  /** Engine of `tool_search` (changes its definition slightly). */
  engine?: ToolSearchEngine;
  directory?: ToolDirectoryOptions;
}

export function sizeOf(text: string): ContextSize {
  return { chars: text.length, tokens: Math.ceil(text.length / CHARS_PER_TOKEN) };
}

/** Measures the full catalog and the setup of each mode, as JSON text the way the API receives it. */
export function contextReport(index: ToolIndex, options: ContextReportOptions = {}): ContextReport {
  const tools = index.list();
  const full = sizeOf(JSON.stringify(tools.map((t) => t.definition)));
  const search = sizeOf(JSON.stringify([toolSearchDefinition({ engine: options.engine })]));
  const directoryText = buildToolDirectory(tools, options.directory);
  const describe = JSON.stringify([describeToolDefinition()]);
  const directory = { chars: directoryText.length + describe.length, tokens: sizeOf(directoryText).tokens + sizeOf(describe).tokens };
  const server = sizeOf(JSON.stringify([SERVER_TOOL_SEARCH.bm25]));
  return { tools: tools.length, full, modes: { search, directory, server } };
}
