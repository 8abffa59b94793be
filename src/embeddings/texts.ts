/**
 * What gets embedded. For a tool: its name as words, its description, and its parameters (names and descriptions),
 * cut to a length the encoder reads usefully. For a document: title plus passage.
 */
import type { Tool } from "../catalog/tool.js";
import { toolTexts } from "../indexes/tool-fields.js";

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

/** The text embedded for a document passage. */
export function documentEmbeddingText(title: string, body: string): string {
  return clip(title ? `${title}. ${body}` : body);
}

function clip(text: string): string {
  return text.length <= MAX_EMBEDDED_CHARS ? text : text.slice(0, MAX_EMBEDDED_CHARS);
}
