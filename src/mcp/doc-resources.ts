/**
 * Documents of a knowledge base as MCP resources (SPEC §14): `toolsearch://docs/{collection}/{id}`, named by the
 * document's title, `text/markdown` when the body looks like Markdown and `text/plain` otherwise, with one template
 * for the same pattern. A read returns the whole text (paging stays in `read_doc`).
 *
 * @example
 * ```ts
 * docResourceUri("kb", "kb-refunds"); // "toolsearch://docs/kb/kb-refunds"
 * parseDocResourceUri("toolsearch://docs/kb/kb-refunds"); // { collection: "kb", id: "kb-refunds" }
 * ```
 */
import type { Resource, ResourceTemplate, TextResourceContents } from "@modelcontextprotocol/sdk/types.js";
import type { Document } from "../catalog/documents.js";

const PREFIX = "toolsearch://docs/";

/** The resource URI of one document (ids are percent-encoded, so any id round-trips). */
export function docResourceUri(collection: string, id: string): string {
  return `${PREFIX}${encodeURIComponent(collection)}/${encodeURIComponent(id)}`;
}

/** The collection and id a document URI names; undefined when it is not one. */
export function parseDocResourceUri(uri: string): { collection: string; id: string } | undefined {
  if (!uri.startsWith(PREFIX)) return undefined;
  const rest = uri.slice(PREFIX.length);
  const slash = rest.indexOf("/");
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  try {
    return { collection: decodeURIComponent(rest.slice(0, slash)), id: decodeURIComponent(rest.slice(slash + 1)) };
  } catch {
    return undefined;
  }
}

/** Headings, links, emphasis, lists or fences: enough to call a body Markdown. */
const MARKDOWN_HINT = /(^|\n)(#{1,6}\s|[-*]\s|```|>\s)|\[[^\]]+\]\([^)]+\)|\*\*[^*]+\*\*/;

export function docMimeType(document: Document): string {
  return MARKDOWN_HINT.test(document.body) ? "text/markdown" : "text/plain";
}

export function docResource(collection: string, document: Document): Resource {
  return { uri: docResourceUri(collection, document.id), name: document.title, mimeType: docMimeType(document) };
}

export function docResourceTemplate(collection: string): ResourceTemplate {
  return {
    uriTemplate: `${PREFIX}${encodeURIComponent(collection)}/{id}`,
    name: `${collection} documents`,
    description: `Any document of the ${collection} knowledge base by id (the ids search_docs returns); the whole text.`,
  };
}

/** The whole text of a document as `resources/read` contents. */
export function docContents(collection: string, document: Document): TextResourceContents {
  return { uri: docResourceUri(collection, document.id), mimeType: docMimeType(document), text: document.body };
}
