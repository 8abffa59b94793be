/**
 * The words an imported tool is found by: its description (summary, description, then method and path) and its
 * category. Which extra texts help search was measured on the ToolAlpaca dev set (scripts/eval-openapi.ts,
 * docs/openapi.md); `DescriptionRecipe` names the choices so the script can compare them and the defaults are the
 * measured best.
 */
import { truncateAtWord } from "../text/truncate.js";

/** Which texts go into an imported tool's description and category. */
export interface DescriptionRecipe {
  /** Begin with the API's title (`info.title`), e.g. "Nager.Date API: …" (default false). */
  apiTitle?: boolean;
  /** Add the description of the first 2xx response, as "Returns: …" (default false). */
  responses?: boolean;
  /** Category when the operation has no tag: the API's title (default) or none. */
  categoryFallback?: "title" | "none";
  /** Longest description in characters, method and path included (default 1,000). */
  maxChars?: number;
}

export const DEFAULT_DESCRIPTION_RECIPE: Required<DescriptionRecipe> = { apiTitle: false, responses: false, categoryFallback: "title", maxChars: 1000 };

/** What an operation says about itself. */
export interface OperationTexts {
  method: string;
  path: string;
  summary?: string;
  description?: string;
  apiTitle?: string;
  response?: string;
  deprecated?: boolean;
}

/** One line of plain text: whitespace collapsed, Markdown link targets and HTML tags removed. */
export function plainText(text: unknown): string {
  if (typeof text !== "string") return "";
  return text.replace(/<[^>]+>/g, " ").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/\s+/g, " ").trim();
}

function sentence(text: string): string {
  return /[.!?:]$/.test(text) ? text : `${text}.`;
}

/**
 * "Summary. Description. (GET /patients/{id})" — the summary is left out when the description starts with it, and the
 * text is cut at a word so that the method and path always fit.
 *
 * @example
 * ```ts
 * operationDescription({ method: "get", path: "/pets/{id}", summary: "Find a pet" }, DEFAULT_DESCRIPTION_RECIPE);
 * // "Find a pet. (GET /pets/{id})"
 * ```
 */
export function operationDescription(texts: OperationTexts, recipe: Required<DescriptionRecipe>): string {
  const summary = plainText(texts.summary);
  const description = plainText(texts.description);
  const parts: string[] = [];
  if (recipe.apiTitle && texts.apiTitle) parts.push(`${plainText(texts.apiTitle)}:`);
  if (texts.deprecated) parts.push("Deprecated.");
  if (summary && !description.toLowerCase().startsWith(summary.toLowerCase().replace(/[.]$/, ""))) parts.push(sentence(summary));
  if (description) parts.push(sentence(description));
  const response = plainText(texts.response);
  if (recipe.responses && response) parts.push(sentence(`Returns: ${response}`));
  const where = `(${texts.method.toUpperCase()} ${texts.path})`;
  const body = parts.join(" ");
  if (!body) return where;
  return `${truncateAtWord(body, Math.max(20, recipe.maxChars - where.length - 1))} ${where}`;
}
