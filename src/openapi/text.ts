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
  /** Which of summary and description to use: both (default), or only the first present of `summary`/`description`. */
  texts?: "both" | "summary" | "description";
  /** Add the first sentence of the API's `info.description`, as context (default false). */
  apiDescription?: boolean;
  /** Category when the operation has no tag: the API's title (default) or none. */
  categoryFallback?: "title" | "none";
  /** Also put the API's title in the category of a tagged operation, e.g. "Nager.Date: Country" (default false). */
  categoryWithTitle?: boolean;
  /**
   * How the method and path end the description: `raw` "(GET /users/{id}/orders)" (default), `words` the same with
   * parameters and version segments left out "(GET users orders)", or `none`. SPEC §13 wants the raw form; the others
   * exist to measure what the path costs or brings (scripts/eval-openapi.ts).
   */
  path?: "raw" | "words" | "none";
  /** Longest description in characters, method and path included (default 1,000). */
  maxChars?: number;
}

export const DEFAULT_DESCRIPTION_RECIPE: Required<DescriptionRecipe> = {
  apiTitle: false, texts: "both", apiDescription: false, responses: false, categoryFallback: "title", categoryWithTitle: false, path: "raw", maxChars: 1000,
};

/** What an operation says about itself. */
export interface OperationTexts {
  method: string;
  path: string;
  summary?: string;
  description?: string;
  apiTitle?: string;
  apiDescription?: string;
  response?: string;
  deprecated?: boolean;
}

/**
 * One line of plain text from CommonMark, as OpenAPI descriptions are written: fenced code blocks (request examples,
 * which only add noise to search), HTML tags, link and image targets, heading marks, emphasis, table rules and
 * inline-code ticks removed, whitespace collapsed.
 *
 * @example
 * ```ts
 * plainText("## Pets\n**List** the [pets](https://x.io) in `store`."); // "Pets List the pets in store."
 * ```
 */
export function plainText(text: unknown): string {
  if (typeof text !== "string") return "";
  // Every pattern here runs in linear time: descriptions come from documents we do not control.
  return withoutFences(text)
    .replace(/<[^<>]*>/g, " ")
    .replace(/!?\[([^[\]]*)\]\([^()\s]*\)/g, "$1")
    .replace(/^ {0,3}#{1,6}[ \t]+/gm, "")
    .replace(/^[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*(?::?-{3,}:?[ \t]*)?$/gm, " ")
    .replace(/\*\*/g, "")
    .replace(/(?<![A-Za-z0-9])__|__(?![A-Za-z0-9])/g, "")
    .replace(/`+/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** The text without its fenced code blocks (an unclosed fence runs to the end, as in CommonMark). */
function withoutFences(text: string): string {
  if (!text.includes("```") && !text.includes("~~~")) return text;
  const kept: string[] = [];
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined) {
      if (marker) fence = marker[0]!.repeat(marker.length);
      else kept.push(line);
    } else if (marker && marker[0] === fence[0] && marker.length >= fence.length) {
      fence = undefined;
    }
  }
  return kept.join("\n");
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
  let summary = plainText(texts.summary);
  let description = plainText(texts.description);
  if (recipe.texts === "summary" && summary) description = "";
  if (recipe.texts === "description" && description) summary = "";
  const parts: string[] = [];
  if (recipe.apiTitle && texts.apiTitle) parts.push(`${plainText(texts.apiTitle)}:`);
  if (texts.deprecated) parts.push("Deprecated.");
  if (summary && !description.toLowerCase().startsWith(summary.toLowerCase().replace(/[.]$/, ""))) parts.push(sentence(summary));
  if (description) parts.push(sentence(description));
  const response = plainText(texts.response);
  if (recipe.responses && response) parts.push(sentence(`Returns: ${response}`));
  const context = firstSentence(plainText(texts.apiDescription));
  if (recipe.apiDescription && context) parts.push(sentence(context));
  const where = pathText(texts.method, texts.path, recipe.path);
  const body = parts.join(" ");
  if (!body) return where || `${texts.method.toUpperCase()} ${texts.path}`;
  if (!where) return truncateAtWord(body, recipe.maxChars);
  return `${truncateAtWord(body, Math.max(20, recipe.maxChars - where.length - 1))} ${where}`;
}

function pathText(method: string, path: string, how: Required<DescriptionRecipe>["path"]): string {
  if (how === "none") return "";
  if (how === "raw") return `(${method.toUpperCase()} ${path})`;
  const words = path.split("/")
    .filter((segment) => segment && !/[{}]/.test(segment) && !/^v\d+(\.\d+)*$/i.test(segment) && segment !== "api");
  return `(${[method.toUpperCase(), ...words.map((w) => w.replace(/[_\-.]+/g, " "))].join(" ")})`;
}

function firstSentence(text: string): string {
  const end = text.search(/[.!?](\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}
