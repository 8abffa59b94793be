/**
 * API keys and scopes. A key is `ts_` and 43 random base64url characters; the store keeps only its SHA-256, so a
 * leaked database does not leak keys. Every `/v1/*` and `/mcp/*` request carries `Authorization: Bearer KEY`; each
 * route declares the scope it needs (`config.scope`), and a key limited to one collection reaches only that one.
 */
import { createHash, randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { looksLikeJwt, type OAuthResourceOptions, OAUTH_SCOPES, type TokenVerifier } from "../auth/oauth-resource.js";
import { ToolsearchError } from "../errors.js";
import { toolFilter } from "../mcp/tool-filter.js";
import { KeyCache } from "../store/key-cache.js";
import { newId } from "../store/records.js";
import { type ApiKeyRecord, type Scope, SCOPES, type Store } from "../store/types.js";

/**
 * The key or access token a request was authenticated with (with `--no-auth`: an anonymous admin). A token's claims
 * may limit it to several collections and to some tools (SPEC §15, §16).
 */
export type RequestKey = ApiKeyRecord & { collections?: string[]; toolsAllow?: string[]; toolsDeny?: string[]; subject?: string };

declare module "fastify" {
  interface FastifyRequest {
    apiKey?: RequestKey;
  }
  interface FastifyContextConfig {
    /** The weakest scope that may call the route; absent means the route is public (health, metrics, docs). */
    scope?: Scope;
    /** The route answers for the whole service (`/metrics`, `/v1/audit`): a key limited to some collections or tools is refused. */
    wholeService?: boolean;
  }
}

/** SHA-256 of a key, hex: what the store keeps. */
export function hashKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** Options of a new key. */
export interface NewKeyOptions {
  scope: Scope;
  /** Limit the key to one collection. */
  collection?: string;
  label?: string;
  /** Tool-name globs: the key sees only the tools matching one of them (SPEC §16). */
  toolsAllow?: string[];
  /** Tool-name globs: the key never sees a tool matching one of them. */
  toolsDeny?: string[];
}

/** Most globs in one list, and most characters in one glob: a visibility rule is a short list of name patterns. */
const MAX_GLOBS = 100;
const MAX_GLOB_CHARS = 256;

function checkGlobs(flag: string, globs: string[] | undefined): void {
  if (globs === undefined) return;
  if (globs.length === 0 || globs.length > MAX_GLOBS) throw new ToolsearchError("invalid_option", `${flag} takes 1 to ${MAX_GLOBS} globs (got ${globs.length})`);
  const bad = globs.find((g) => typeof g !== "string" || g.length === 0 || g.length > MAX_GLOB_CHARS);
  if (bad !== undefined) throw new ToolsearchError("invalid_option", `${flag}: ${JSON.stringify(bad)} is not a tool-name glob of 1 to ${MAX_GLOB_CHARS} characters`);
}

/**
 * Which tools a caller may see: undefined when it sees them all, else a predicate on tool names (a tool is kept when
 * it matches an allow glob, or there is no allow list, and matches no deny glob).
 */
export function toolVisibility(key: Pick<RequestKey, "toolsAllow" | "toolsDeny"> | undefined): ((name: string) => boolean) | undefined {
  if (!key?.toolsAllow && !key?.toolsDeny) return undefined;
  return toolFilter({ allow: key.toolsAllow, deny: key.toolsDeny });
}

/**
 * Creates a key, stores its hash and returns the key itself: the only time it is ever seen.
 *
 * @example
 * const { id, key } = await createApiKey(store, { scope: "read", collection: "crm" });
 */
export async function createApiKey(store: Store, options: NewKeyOptions): Promise<{ id: string; key: string; scope: Scope; collection?: string; toolsAllow?: string[]; toolsDeny?: string[] }> {
  if (!SCOPES.includes(options.scope)) {
    throw new ToolsearchError("invalid_option", `scope must be one of ${SCOPES.join(", ")} (got ${JSON.stringify(options.scope)})`);
  }
  checkGlobs("--tools-allow", options.toolsAllow);
  checkGlobs("--tools-deny", options.toolsDeny);
  const key = `ts_${randomBytes(32).toString("base64url")}`;
  const id = newId();
  const { collection, label, toolsAllow, toolsDeny } = options;
  await store.createKey({ id, hash: hashKey(key), scope: options.scope, collection, label, toolsAllow, toolsDeny, createdAt: new Date().toISOString() });
  return { id, key, scope: options.scope, ...(collection ? { collection } : {}), ...(toolsAllow ? { toolsAllow } : {}), ...(toolsDeny ? { toolsDeny } : {}) };
}

/** Whether `held` includes `needed` (scopes are ordered: read < call < write < admin). */
export function scopeAllows(held: Scope, needed: Scope): boolean {
  return SCOPES.indexOf(held) >= SCOPES.indexOf(needed);
}

/** Throws `forbidden` unless the request's key has `needed` on `collection` (when the route names one). */
export function requireScope(request: FastifyRequest, needed: Scope, collection?: string): void {
  const key = request.apiKey;
  if (!key) throw new ToolsearchError("unauthorized", "This route needs an API key: send Authorization: Bearer <key>.");
  if (!scopeAllows(key.scope, needed)) {
    throw new ToolsearchError("forbidden", `This request needs the ${needed} scope; key ${key.id} has ${key.scope}.`, { details: { needed, held: key.scope } });
  }
  if (collection !== undefined && !reaches(key, collection)) {
    const allowed = key.collections ?? [key.collection!];
    throw new ToolsearchError("forbidden", `Key ${key.id} is limited to collection ${allowed.map((c) => JSON.stringify(c)).join(", ") || "(none)"}.`, { details: { collection: allowed.join(",") } });
  }
}

/** For a route about the whole service: what it answers names every collection and tool. */
function requireWholeService(key: RequestKey): void {
  if (key.collection !== undefined || key.collections !== undefined || key.toolsAllow || key.toolsDeny) {
    throw new ToolsearchError("forbidden", `Key ${key.id} is limited to some collections or tools; this route answers for the whole service and needs an unlimited admin key.`);
  }
}

/** Whether the key may see this collection at all (for listings). */
export function keySees(key: RequestKey | undefined, collection: string): boolean {
  return key !== undefined && reaches(key, collection);
}

function reaches(key: RequestKey, collection: string): boolean {
  if (key.collection !== undefined && key.collection !== collection) return false;
  return key.collections === undefined || key.collections.includes(collection);
}

/** Options of the auth plugin. */
export interface AuthOptions {
  store: Store;
  /** `--no-auth`: every request acts as an anonymous admin (allowed on loopback only; checked by the caller). */
  disabled?: boolean;
  /** `--oauth-issuer …`: JWT access tokens of that issuer are accepted beside keys. */
  oauth?: { options: OAuthResourceOptions; verifier: TokenVerifier };
}

const ANONYMOUS: RequestKey = { id: "anonymous", scope: "admin", createdAt: new Date(0).toISOString() };

/** Authenticates every request to a route that declares a scope, then checks that scope. */
export const authPlugin = fp(async (app: FastifyInstance, options: AuthOptions) => {
  app.decorateRequest("apiKey", undefined);
  // Remembers each key's last answer, so that reads keep working while the store is away (src/store/key-cache.ts).
  const keys = new KeyCache(options.store);
  app.addHook("onRequest", async (request, reply) => {
    const needed = request.routeOptions.config?.scope;
    if (needed === undefined) return;
    // Without keys the only guard is the loopback address; a web page could still reach it through DNS rebinding
    // (its own name resolving to 127.0.0.1), which shows in the Host header.
    if (options.disabled && !isLoopbackName(request.hostname)) {
      throw new ToolsearchError("forbidden", `Host ${JSON.stringify(request.hostname)} refused: with --no-auth only loopback names (localhost, 127.0.0.1, [::1]) are served.`);
    }
    const params = request.params as { c?: string } | undefined;
    try {
      request.apiKey = options.disabled ? ANONYMOUS : await authenticate(keys, request, options.oauth);
      requireScope(request, needed, params?.c);
      if (request.routeOptions.config?.wholeService) requireWholeService(request.apiKey);
    } catch (error) {
      challenge(reply, error, options.oauth && resourceMetadataUrl(request, options.oauth.options));
      throw error;
    }
  });
}, { name: "toolsearch-auth" });

async function authenticate(keys: Pick<Store, "keyByHash">, request: FastifyRequest, oauth: AuthOptions["oauth"]): Promise<RequestKey> {
  const token = bearer(request.headers.authorization);
  if (oauth && token !== undefined && looksLikeJwt(token)) return oauth.verifier.verify(token, resourceUrl(request, oauth.options));
  return lookup(keys, token);
}

/**
 * RFC 6750's challenge on a refusal; with OAuth on it points at the protected resource metadata (RFC 9728) so that
 * an MCP client finds the issuer from the 401 alone, and a 403 names the scope to step up to.
 */
function challenge(reply: FastifyReply, error: unknown, metadataUrl: string | undefined): void {
  if (!(error instanceof ToolsearchError)) return;
  const parts = metadataUrl ? [`resource_metadata="${metadataUrl}"`] : [];
  if (error.code === "invalid_token") parts.push(`error="invalid_token"`);
  else if (error.code === "forbidden" && metadataUrl && typeof error.details.needed === "string") {
    const needed = error.details.needed.startsWith("toolsearch:") ? error.details.needed : `toolsearch:${error.details.needed}`;
    if (OAUTH_SCOPES.includes(needed)) parts.push(`error="insufficient_scope"`, `scope="${needed}"`);
  } else if (error.code !== "unauthorized") return;
  reply.header("www-authenticate", parts.length ? `Bearer ${parts.join(", ")}` : "Bearer");
}

/** The service's resource URL: configured, else the audience when it is a URL, else the address it listens on. */
export function resourceUrl(request: FastifyRequest, options: OAuthResourceOptions): string {
  if (options.resource) return options.resource;
  if (options.audience && /^https?:\/\//.test(options.audience)) return options.audience;
  const address = request.server.server.address() as AddressInfo | null;
  const host = address ? (address.family === "IPv6" ? `[${address.address}]` : address.address) : request.host;
  return `${request.protocol}://${address ? `${host}:${address.port}` : host}/`;
}

/** Where the protected resource metadata is served, on the resource's own origin. */
export function resourceMetadataUrl(request: FastifyRequest, options: OAuthResourceOptions): string {
  return new URL("/.well-known/oauth-protected-resource", resourceUrl(request, options)).toString();
}

/** Whether a host name (without port) names this machine's loopback interface. */
export function isLoopbackName(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

function bearer(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1];
}

async function lookup(store: Pick<Store, "keyByHash">, token: string | undefined): Promise<RequestKey> {
  if (token === undefined) throw new ToolsearchError("unauthorized", "Missing API key: send Authorization: Bearer <key> (create one with toolsearch keys create).");
  const key = await store.keyByHash(hashKey(token));
  if (!key) throw new ToolsearchError("unauthorized", "Unknown or revoked API key.");
  return key;
}
