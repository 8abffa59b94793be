/**
 * The knowledge-search meta-tools an agent sees: `search_docs` (previews with stable ids) and `read_doc` (one article,
 * paged). Pure definitions in Anthropic shape plus handlers; no SDK calls, so the agent loops and the MCP gateway
 * only adapt them to their wire format.
 *
 * Handlers answer in one of two formats:
 * - `json`: a JSON text, as a plain tool result;
 * - `search_result`: Anthropic `search_result` content blocks (`source`, `title`, `content`, `citations`), so that
 *   the model's answer can cite the articles it used.
 *
 * @example
 * ```ts
 * const tools = docsToolDefinitions({ about: "the GOCOURSE help center" });
 * const result = await handleDocsTool(index, "search_docs", { query: "refund" });
 * // { content: '[{"id":"kb-refunds","title":"Refund policy",…}]', isError: false }
 * ```
 */
import type { AnthropicTool } from "../catalog/tool.js";
import { ToolsearchError } from "../errors.js";
import type { DocumentIndex } from "../indexes/document-index.js";
import type { DocumentHit, DocumentPage } from "../indexes/document-index-options.js";

/** A text content block. */
export interface TextBlock {
  type: "text";
  text: string;
}

/** An Anthropic `search_result` content block: a source the model can cite. */
export interface SearchResultBlock {
  type: "search_result";
  /** The document's url when it has one, else its id. */
  source: string;
  title: string;
  content: TextBlock[];
  citations: { enabled: boolean };
}

/** What a handler returns: the `content` of a tool result, and whether it reports an error. */
export interface DocsToolResult {
  content: string | (TextBlock | SearchResultBlock)[];
  isError: boolean;
  /** The ids of the articles a search found, best first (so a surface can link them, e.g. MCP `resource_link`). */
  found?: string[];
}

/** How handlers answer: a JSON text, or `search_result` blocks for citations. */
export type DocsResultFormat = "json" | "search_result";

/** Options of the knowledge-search meta-tools. */
export interface DocsToolsOptions {
  /** What the knowledge base holds, for the tool description (e.g. "the GOCOURSE help center: policies, …"). */
  about?: string;
  /** Most results per search (default 5; an agent may ask for up to 10). */
  maxResults?: number;
  /** Characters per `read_doc` page (default 4000). */
  pageChars?: number;
  /** Answer format (default `json`). */
  format?: DocsResultFormat;
}

export const SEARCH_DOCS = "search_docs";
export const READ_DOC = "read_doc";
const MAX_AGENT_RESULTS = 10;
const DEFAULTS = { maxResults: 5, pageChars: 4000, format: "json" as DocsResultFormat };

/** The two tool definitions, in Anthropic shape (`name`, `description`, `input_schema`). */
export function docsToolDefinitions(options: DocsToolsOptions = {}): AnthropicTool[] {
  return [searchDocsDefinition(options), readDocDefinition(options)];
}

export function searchDocsDefinition(options: DocsToolsOptions = {}): AnthropicTool {
  const { maxResults } = { ...DEFAULTS, ...options };
  const about = options.about ? `${options.about}` : "the knowledge base";
  return {
    name: SEARCH_DOCS,
    description: [
      `Search ${about} for articles that answer a question.`,
      "Use it before answering any question the knowledge base may cover, instead of answering from general knowledge.",
      `Returns up to ${maxResults} articles, best first, each with an id, a title, a relevance score and a snippet of at most 240 characters taken near the words that matched.`,
      `Snippets are previews and may cut details off: call ${READ_DOC} with an id (and the result's offset to start at the match) before relying on them.`,
      "Matching is by keywords, so pass a few specific words (e.g. 'refund policy'), not a whole conversation; when nothing matches, try other or fewer words, and if still nothing, say that the knowledge base does not cover it.",
    ].join(" "),
    input_schema: {
      type: "object",
      properties: {
        query: { type: "string", description: "A few keywords describing the topic, e.g. 'refund' or 'certificate internship'." },
        limit: { type: "integer", minimum: 1, maximum: Math.max(MAX_AGENT_RESULTS, maxResults), description: `How many articles to return (default ${maxResults}).` },
      },
      required: ["query"],
      additionalProperties: false,
    },
  };
}

export function readDocDefinition(options: DocsToolsOptions = {}): AnthropicTool {
  const { pageChars } = { ...DEFAULTS, ...options };
  return {
    name: READ_DOC,
    description: [
      `Read the text of one knowledge-base article, by an id from ${SEARCH_DOCS} results.`,
      `Use it after ${SEARCH_DOCS}, when a preview looks relevant, to get the details right.`,
      `Returns the title and up to ${pageChars} characters of text starting at offset, with offset, total_chars and, when more text follows, next_offset.`,
      "For a long article, call it again with offset set to next_offset to continue; pass a search result's offset to start at the passage that matched.",
      `An unknown id is an error: search first and use an id exactly as ${SEARCH_DOCS} returned it.`,
    ].join(" "),
    input_schema: {
      type: "object",
      properties: {
        id: { type: "string", description: `Article id from ${SEARCH_DOCS}, e.g. 'kb-refunds'.` },
        offset: { type: "integer", minimum: 0, description: "Where to start reading, in characters (default 0)." },
      },
      required: ["id"],
      additionalProperties: false,
    },
  };
}

/** Runs `search_docs` or `read_doc` by name; undefined for any other name (so callers can chain handlers). */
export async function handleDocsTool(index: DocumentIndex, name: string, input: unknown, options: DocsToolsOptions = {}): Promise<DocsToolResult | undefined> {
  if (name === SEARCH_DOCS) return handleSearchDocs(index, input, options);
  if (name === READ_DOC) return handleReadDoc(index, input, options);
  return undefined;
}

/** `search_docs`: previews of the best articles, or guidance text when nothing matches. */
export async function handleSearchDocs(index: DocumentIndex, input: unknown, options: DocsToolsOptions = {}): Promise<DocsToolResult> {
  const { maxResults, format } = { ...DEFAULTS, ...options };
  const args = asObject(input);
  const query = typeof args.query === "string" ? args.query.trim() : "";
  if (!query) return failure(`${SEARCH_DOCS} needs a query: a few keywords describing the topic, e.g. {"query": "refund policy"}.`);
  const limit = args.limit === undefined ? maxResults : args.limit;
  const most = Math.max(MAX_AGENT_RESULTS, maxResults);
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > most) {
    return failure(`limit must be a whole number from 1 to ${most}.`);
  }
  let hits: DocumentHit[];
  try {
    hits = await index.search(query, { limit });
  } catch (error) {
    return fromError(error);
  }
  if (hits.length === 0) return { content: noMatchGuidance(index, query), isError: false };
  const found = hits.map((h) => h.id);
  if (format === "json") return { content: JSON.stringify(hits.map(compactHit)), isError: false, found };
  const ids = hits.map((h) => `${h.id} (${h.title})`).join("; ");
  const intro = `${hits.length} article${hits.length === 1 ? "" : "s"} for ${JSON.stringify(query)}, best first. Ids for ${READ_DOC}: ${ids}. Read an article before relying on details cut off in its snippet.`;
  return { content: [text(intro), ...hits.map((h) => searchResult(h.url ?? h.id, h.title, h.snippet))], isError: false, found };
}

/** `read_doc`: one page of one article; an unknown id is an error that points back to `search_docs`. */
export function handleReadDoc(index: DocumentIndex, input: unknown, options: DocsToolsOptions = {}): DocsToolResult {
  const { pageChars, format } = { ...DEFAULTS, ...options };
  const args = asObject(input);
  const id = typeof args.id === "string" ? args.id.trim() : "";
  if (!id) return failure(`${READ_DOC} needs an id from ${SEARCH_DOCS} results, e.g. {"id": "kb-refunds"}.`);
  let page: DocumentPage;
  try {
    const offset = args.offset === undefined ? 0 : args.offset;
    if (typeof offset !== "number") return failure("offset must be a whole number of characters (0 or more).");
    page = index.read(id, { offset, maxChars: pageChars });
  } catch (error) {
    return fromError(error);
  }
  if (format === "json") return { content: JSON.stringify(page), isError: false };
  const blocks: (TextBlock | SearchResultBlock)[] = [];
  if (page.text.trim()) blocks.push(searchResult(page.url ?? page.id, page.title, page.text));
  blocks.push(text(pagingNote(page)));
  return { content: blocks, isError: false };
}

/** What to do when a search finds nothing: close terms when there are some, other words, and to admit a gap. */
export function noMatchGuidance(index: DocumentIndex, query: string): string {
  const near = index.suggest(query);
  const hint = near.length ? ` Close terms in the knowledge base: ${near.join(", ")}.` : "";
  return `No articles match ${JSON.stringify(query)}.${hint} Try different or fewer keywords, or a synonym. If nothing matches, tell the user the knowledge base does not cover it rather than guessing.`;
}

function pagingNote(page: DocumentPage): string {
  const range = `Characters ${page.offset}–${page.offset + page.text.length} of ${page.total_chars} of ${JSON.stringify(page.id)}.`;
  return page.next_offset === undefined
    ? `${range} End of the article.`
    : `${range} More follows: call ${READ_DOC} with {"id": ${JSON.stringify(page.id)}, "offset": ${page.next_offset}} to continue.`;
}

/** A hit for the JSON answer: scores rounded, so the result stays small and stable. */
function compactHit(hit: DocumentHit): DocumentHit {
  return { ...hit, score: Math.round(hit.score * 1000) / 1000 };
}

function searchResult(source: string, title: string, body: string): SearchResultBlock {
  return { type: "search_result", source, title, content: [text(body)], citations: { enabled: true } };
}

function text(value: string): TextBlock {
  return { type: "text", text: value };
}

function failure(message: string): DocsToolResult {
  return { content: message, isError: true };
}

/** A user-caused error becomes an error result the model can act on; anything else is a bug and is thrown. */
function fromError(error: unknown): DocsToolResult {
  if (error instanceof ToolsearchError) return failure(error.message);
  throw error;
}

function asObject(input: unknown): Record<string, unknown> {
  return typeof input === "object" && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}
