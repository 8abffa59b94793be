/**
 * What gets embedded. For a tool: its name as words, its description, and its parameters (names and descriptions),
 * cut to a length the encoder reads usefully. For a document: title plus passage.
 */
import type { Tool } from "../catalog/tool.js";
import { toolTexts } from "../indexes/tool-fields.js";
import { splitSentences } from "../text/sentences.js";

/** Embedded texts are cut here: USE lite and small ONNX encoders gain little from more, and cost grows with length. */
export const MAX_EMBEDDED_CHARS = 1000;

/** `get_stockPrice-v2` → `get stock price v2`. */
export function nameToWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/[_\-.:/]+/g, " ")
    .trim()
    .toLowerCase();
}

/** Which parts of a tool are embedded; `full` (the default) was measured best, see docs/embeddings.md. */
export type ToolTextRecipe = "name-description" | "full";

/** The text embedded for a tool. */
export function toolEmbeddingText(tool: Tool, recipe: ToolTextRecipe = "full"): string {
  const texts = toolTexts(tool);
  const parts = [toolNameText(tool)];
  if (tool.description) parts.push(tool.description.trim());
  if (recipe === "full") {
    if (texts.paramNames) parts.push(`Parameters: ${texts.paramNames.split(" ").map(nameToWords).join(", ")}.`);
    if (texts.paramDescriptions) parts.push(texts.paramDescriptions.replace(/\s+/g, " "));
  }
  return clip(parts.join(". ").replace(/\.\.+/g, "."));
}

/** The words a tool's name is embedded as on its own (the ranker's `name_cosine`): its title, else its name. */
export function toolNameText(tool: Tool): string {
  return clip(nameToWords(tool.title ?? tool.name));
}

/** Sentences of a description embedded on their own at most: the first few say what a tool is for. */
export const MAX_TOOL_SENTENCES = 4;
/** Fewer words than this is a fragment ("Beta.", "See docs."), not a sentence that says what a tool does. */
export const MIN_SENTENCE_WORDS = 3;

/**
 * The sentences of a tool's description each embedded on their own (the ranker's `sentence_cosine`): the first
 * `MAX_TOOL_SENTENCES` of at least `MIN_SENTENCE_WORDS` words. A general tool's purpose is often its first sentence,
 * diluted in the whole text's vector by its parameters and later sentences. `[]` for a tool without such a sentence.
 */
export function toolSentenceTexts(tool: Tool): string[] {
  if (!tool.description) return [];
  const sentences = splitSentences(tool.description, Number.MAX_SAFE_INTEGER).filter((s) => wordCount(s) >= MIN_SENTENCE_WORDS);
  const kept = sentences.slice(0, process.env.SENTENCE_VARIANT === "first" ? 1 : MAX_TOOL_SENTENCES);
  if (process.env.SENTENCE_VARIANT === "params") {
    const texts = toolTexts(tool);
    const params = [texts.paramNames && `Parameters: ${texts.paramNames.split(" ").map(nameToWords).join(", ")}.`, texts.paramDescriptions?.replace(/\s+/g, " ")].filter(Boolean).join(" ");
    if (params) kept.push(params);
  }
  return kept.map(clip);
}

function wordCount(text: string): number {
  return text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
}

/** The text embedded for a document passage. */
export function documentEmbeddingText(title: string, body: string): string {
  return clip(title ? `${title}. ${body}` : body);
}

function clip(text: string): string {
  return text.length <= MAX_EMBEDDED_CHARS ? text : text.slice(0, MAX_EMBEDDED_CHARS);
}
