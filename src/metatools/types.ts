/**
 * The shape-neutral form of a meta-tool: a definition (Anthropic shape, the richest of the three) and a handler
 * whose result is a list of content blocks. `tool_reference` blocks are the neutral way to say "this catalog tool is
 * now available": the Anthropic adapter sends them as they are, the OpenAI adapter turns them into compact
 * definitions and adds the tools to the next request, the MCP gateway renders them as text.
 */
import type { AnthropicTool } from "../catalog/tool.js";
import type { SearchResultBlock, TextBlock } from "./docs-tools.js";

export type { SearchResultBlock, TextBlock };

/** Points at a catalog tool that the call made available (Anthropic's `tool_reference` block). */
export interface ToolReferenceBlock {
  type: "tool_reference";
  tool_name: string;
}

/** Any block a meta-tool or a tool handler may answer with. */
export type ResultBlock = TextBlock | SearchResultBlock | ToolReferenceBlock;

/** What a meta-tool handler returns: the tool result's content and whether it reports an error. */
export interface MetaToolResult {
  content: string | ResultBlock[];
  isError: boolean;
}

/** What the stats count a meta-tool call as. */
export type MetaToolKind = "tool_search" | "describe_tool" | "search_docs" | "read_doc" | "other";

/** A meta-tool: what the model sees, and what runs when it calls it. */
export interface MetaTool {
  kind: MetaToolKind;
  definition: AnthropicTool;
  handle(input: Record<string, unknown>): Promise<MetaToolResult>;
}

export function textBlock(text: string): TextBlock {
  return { type: "text", text };
}

export function toolReference(name: string): ToolReferenceBlock {
  return { type: "tool_reference", tool_name: name };
}

/** The names of the tools a result refers to, in order, without repeats. */
export function referencedTools(content: MetaToolResult["content"]): string[] {
  if (typeof content === "string") return [];
  const names = content.filter((b): b is ToolReferenceBlock => b.type === "tool_reference").map((b) => b.tool_name);
  return [...new Set(names)];
}
