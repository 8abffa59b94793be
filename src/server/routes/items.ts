/**
 * `/v1/collections/{c}/tools/{name}` and `/v1/collections/{c}/documents/{id}`: one item at a time, with `ETag` and
 * `If-Match`. Both resources share these handlers; `ITEM_KINDS` says what differs.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { ToolsearchError } from "../../errors.js";
import type { ItemRecord } from "../../store/types.js";
import type { Collections } from "../collections.js";
import { checkOneItem, holds, ITEM_KINDS, type ItemKind, toolDefinition } from "../items.js";
import { anyObject, bearer, COLLECTION_NAME, withErrors } from "../schemas.js";
import { etagFor, requireWritable, seesAllTools, visibilityOf } from "../visibility.js";
import type { RequestKey } from "../auth.js";

/** Path parameters: the collection, and the tool's name or the document's id (named as SPEC §9 names them). */
type ItemParams = { c: string } & Record<string, string>;

function itemParams(param: string) {
  return {
    type: "object",
    required: ["c", param],
    properties: { c: COLLECTION_NAME, [param]: { type: "string", minLength: 1, maxLength: 256 } },
  } as const;
}

const ifMatchHeaders = {
  type: "object",
  properties: { "if-match": { type: "string", description: "Write only if the item's current ETag is this one (else 412)" } },
} as const;

const readQuery = {
  type: "object",
  properties: {
    offset: { type: "integer", minimum: 0, description: "documents: read from this character on (the read shape of SPEC §4)" },
    max_chars: { type: "integer", minimum: 1, description: "documents: at most this many characters" },
  },
} as const;

/** ETags are sent quoted (RFC 9110); `If-Match` may come quoted or bare, weak or strong. */
function quoted(etag: string): string {
  return `"${etag}"`;
}

function unquoted(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return header.trim().replace(/^W\//, "").replace(/^"(.*)"$/, "$1");
}

export async function itemRoutes(app: FastifyInstance, { collections }: { collections: Collections }): Promise<void> {
  for (const kind of Object.keys(ITEM_KINDS) as ItemKind[]) registerKind(app, collections, kind);
}

function registerKind(app: FastifyInstance, collections: Collections, kind: ItemKind): void {
  const { segment, noun, notFound } = ITEM_KINDS[kind];
  const store = collections.store;
  const param = kind === "tools" ? "name" : "id";
  const path = `/v1/collections/:c/${segment}/:${param}`;
  const params = itemParams(param);

  /** The collection, checked to hold this kind of item. */
  const target = async (name: string) => {
    const collection = await collections.resolve(name);
    if (!holds(collection.kind, kind)) {
      const hint = collection.kind === "mcp" ? "its tools come from its MCP servers and are read-only over REST" : `use /${ITEM_KINDS[collection.kind as ItemKind].segment}/`;
      throw new ToolsearchError("conflict", `Collection ${JSON.stringify(name)} is of kind ${collection.kind}, it holds no ${noun}s here: ${hint}.`);
    }
    return collection;
  };
  const missing = (c: string, key: string) => new ToolsearchError(notFound, `Unknown ${noun} ${JSON.stringify(key)} in collection ${JSON.stringify(c)}.`);
  const withEtag = (reply: FastifyReply, item: ItemRecord, key: RequestKey | undefined) => reply.header("etag", quoted(etagFor(key, kind, item.etag)));
  /**
   * The stored ETag an `If-Match` stands for. A key with a visibility rule is shown digests (see `etagFor`): its
   * `If-Match` is matched against the digest of the current ETag and handed to the store as that ETag, so the store
   * still checks it in the write's own transaction.
   */
  const storedMatch = async (c: string, name: string, header: string | undefined, key: RequestKey | undefined) => {
    const ifMatch = unquoted(header);
    if (ifMatch === undefined || kind === "docs" || seesAllTools(key)) return ifMatch;
    const current = await store.getItem(c, name);
    return current && etagFor(key, kind, current.etag) === ifMatch ? current.etag : ifMatch;
  };
  /** The store's `precondition_failed` names the current ETag: a key shown digests is shown the digest. */
  const conditional = async <T>(key: RequestKey | undefined, write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } catch (error) {
      const details = (error as ToolsearchError).details as { etag?: string | null } | undefined;
      if (!(error instanceof ToolsearchError) || error.code !== "precondition_failed" || seesAllTools(key) || kind === "docs") throw error;
      const etag = details?.etag ? etagFor(key, kind, details.etag) : null;
      throw new ToolsearchError("precondition_failed", `If-Match does not match the current ETag${etag ? ` (${JSON.stringify(etag)})` : " (the tool does not exist)"}; nothing was changed`, { details: { ...details, etag } });
    }
  };

  app.put<{ Params: ItemParams; Headers: { "if-match"?: string } }>(path, {
    config: { scope: "write", audit: "put_item" },
    schema: {
      summary: `Create or replace one ${noun}`,
      security: bearer,
      params,
      headers: ifMatchHeaders,
      body: anyObject,
      response: withErrors({ 200: anyObject, 201: anyObject }),
    },
  }, async (request, reply) => {
    const { c, [param]: key } = request.params;
    const caller = request.apiKey;
    const collection = await target(c);
    requireWritable(caller, collection.kind, [key]);
    const item = checkOneItem(kind, request.body, key, `${c}/${segment}/${key}`);
    const ifMatch = await storedMatch(c, key, request.headers["if-match"], caller);
    const result = await conditional(caller, () => collections.writes.putItem(c, item, { ifMatch }));
    withEtag(reply, result.item, caller).code(result.created ? 201 : 200);
    return kind === "tools" ? toolDefinition(result.item.body) : result.item.body;
  });

  app.get<{ Params: ItemParams; Querystring: { offset?: number; max_chars?: number } }>(path, {
    config: { scope: "read" },
    schema: {
      summary: kind === "tools" ? "One tool in Anthropic shape" : "One document as stored, or a page of it with offset/max_chars",
      security: bearer,
      params,
      ...(kind === "docs" ? { querystring: readQuery } : {}),
      response: withErrors({ 200: anyObject }),
    },
  }, async (request, reply) => {
    const { c, [param]: key } = request.params;
    const collection = await target(c);
    // A hidden tool answers exactly as an absent one.
    const hidden = kind === "tools" && visibilityOf(request.apiKey)?.accept(key) === false;
    const item = hidden ? undefined : await store.getItem(c, key);
    if (!item) throw missing(c, key);
    withEtag(reply, item, request.apiKey);
    const { offset, max_chars: maxChars } = request.query;
    if (kind === "docs" && (offset !== undefined || maxChars !== undefined)) return collection.docs!.read(key, { offset, maxChars });
    return kind === "tools" ? toolDefinition(item.body) : item.body;
  });

  app.delete<{ Params: ItemParams; Headers: { "if-match"?: string } }>(path, {
    config: { scope: "write", audit: "delete_item" },
    schema: { summary: `Delete one ${noun}`, security: bearer, params, headers: ifMatchHeaders, response: withErrors({ 204: { type: "null" } }) },
  }, async (request, reply) => {
    const { c, [param]: key } = request.params;
    const caller = request.apiKey;
    const collection = await target(c);
    requireWritable(caller, collection.kind, [key]);
    const ifMatch = await storedMatch(c, key, request.headers["if-match"], caller);
    if (!(await conditional(caller, () => collections.writes.deleteItem(c, key, { ifMatch })))) throw missing(c, key);
    return reply.code(204).send();
  });
}
