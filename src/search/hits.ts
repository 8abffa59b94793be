/** Stage 5 of a tool search (`pipeline.ts`): a ranked tool as the caller gets it. */
import type { Tool } from "../catalog/tool.js";
import type { Ranked } from "../engines/top-k.js";
import { DESCRIPTION_PREVIEW_CHARS, type ToolHit } from "../indexes/tool-index-options.js";
import { truncateAtWord } from "../text/truncate.js";

/** The hit of one ranked tool: its name, score, description cut at a word, and category when it has one. */
export function toolHit(tool: Tool, hit: Ranked): ToolHit {
  const out: ToolHit = { name: tool.name, score: hit.score, description: truncateAtWord(tool.description, DESCRIPTION_PREVIEW_CHARS) };
  if (tool.category !== undefined) out.category = tool.category;
  return out;
}
