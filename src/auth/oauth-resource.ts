/**
 * The service as an OAuth-protected resource (SPEC §15): JWT access tokens from one issuer are accepted beside API
 * keys. The signature is checked against the issuer's JWKS (found through its metadata, fetched once and cached; a
 * token signed by a key the cache does not know makes jose fetch the set again, which is how rotated keys are picked
 * up), then `iss`, `aud`, `exp` and `nbf`. The token's `toolsearch:*` scopes map to §9's, and optional claims limit it
 * to collections and tools. Every refusal is a `ToolsearchError` (`invalid_token`, 401) with a reason, never a 500.
 */
import type { createRemoteJWKSet, JWTPayload } from "jose";
import { ToolsearchError } from "../errors.js";
import { type ApiKeyRecord, type Scope, SCOPES } from "../store/types.js";

/** Options of the service's OAuth side (`serve --oauth-issuer …`). */
export interface OAuthResourceOptions {
  /** The authorization server whose tokens are accepted; its metadata names the JWKS. */
  issuer: string;
  /**
   * The `aud` a token must carry. Default: the service's resource URL (`resource`, else the address it listens on),
   * which is what MCP clients ask for as the resource indicator (RFC 8707).
   */
  audience?: string;
  /** The public URL of the service, announced as `resource` in its protected resource metadata. */
  resource?: string;
  /** A claim (string or array) naming the collections a token may reach; `*` means all. Absent claim: none. */
  collectionsClaim?: string;
  /** A claim naming the tools a token may see: globs (string or array), or `{"allow": […], "deny": […]}`. */
  toolsClaim?: string;
  /** Least time between two JWKS fetches (default 30 s); a token with an unknown key waits for no more than that. */
  jwksCooldownMs?: number;
}

/** The caller a token stands for: a key record without a stored key, plus what the claims limit. */
export interface TokenCaller extends ApiKeyRecord {
  /** The token's `sub`, for the audit log and MCP sessions. */
  subject: string;
  /** From `--oauth-collections-claim`: the collections this token may reach (absent: all). */
  collections?: string[];
  /** From `--oauth-tools-claim`: globs of the tools this caller may see. */
  toolsAllow?: string[];
  /** From `--oauth-tools-claim` (`{"deny": […]}`): globs of the tools hidden from this caller. */
  toolsDeny?: string[];
}

/** OAuth scopes and the service scopes they grant. */
export const OAUTH_SCOPES: readonly string[] = SCOPES.map((scope) => `toolsearch:${scope}`);

/** Algorithms accepted: asymmetric only, so a JWKS public key can never be used as an HMAC secret. */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

/** Looks like a JWS compact serialisation (three base64url parts); API keys never do. */
export function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token);
}

type JoseErrors = typeof import("jose").errors;

/**
 * jose, imported on the first token: a service without `--oauth-issuer` never needs it, and importing it is a
 * measurable share of `serve`'s start-up (docs/service.md, "Many collections").
 */
function loadJose(): Promise<typeof import("jose")> {
  return import("jose");
}

/** Verifies access tokens of one issuer. One per service; it caches the issuer's metadata and keys. */
export class TokenVerifier {
  private jwks?: Promise<ReturnType<typeof createRemoteJWKSet>>;

  constructor(private readonly options: OAuthResourceOptions) {}

  get issuer(): string {
    return this.options.issuer;
  }

  /**
   * The caller a token stands for, or `invalid_token` (401) saying which rule it broke. `audience` is the `aud`
   * expected when the options name none.
   */
  async verify(token: string, audience: string): Promise<TokenCaller> {
    const keys = await this.keys();
    const jose = await loadJose();
    const expected = this.options.audience ?? audience;
    let payload: JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(token, keys, { issuer: this.options.issuer, audience: expected, algorithms: ALGORITHMS, clockTolerance: 5 }));
    } catch (error) {
      throw refusal(error, expected, jose.errors);
    }
    return this.caller(payload);
  }

  private caller(payload: JWTPayload): TokenCaller {
    const subject = typeof payload.sub === "string" ? payload.sub : typeof payload.client_id === "string" ? payload.client_id : "unknown";
    const scope = highestScope(payload);
    if (!scope) {
      throw new ToolsearchError("forbidden", `The access token carries none of the scopes ${OAUTH_SCOPES.join(", ")}.`, { details: { needed: "toolsearch:read" } });
    }
    const caller: TokenCaller = { id: `oauth:${subject}`, subject, scope, createdAt: new Date((payload.iat ?? 0) * 1000).toISOString() };
    if (this.options.collectionsClaim) {
      const named = stringList(payload[this.options.collectionsClaim]);
      if (!named.includes("*")) caller.collections = named;
    }
    if (this.options.toolsClaim) Object.assign(caller, toolRules(payload[this.options.toolsClaim]));
    return caller;
  }

  private keys(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    this.jwks ??= this.discover().catch((error: unknown) => {
      this.jwks = undefined; // the next request tries again
      throw error;
    });
    return this.jwks;
  }

  /** The issuer's `jwks_uri`, from OpenID discovery or RFC 8414 metadata (whichever answers first in that order). */
  private async discover(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    const issuer = new URL(this.options.issuer);
    const path = issuer.pathname.replace(/\/$/, "");
    const candidates = [
      new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
      new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
    ];
    for (const url of candidates) {
      const metadata = await fetchJson(url);
      if (metadata && typeof metadata.jwks_uri === "string") {
        if (metadata.issuer !== undefined && metadata.issuer !== this.options.issuer) {
          throw new ToolsearchError("upstream_unavailable", `The metadata at ${url} names issuer ${JSON.stringify(metadata.issuer)}, not ${JSON.stringify(this.options.issuer)} (--oauth-issuer must be exact).`);
        }
        return (await loadJose()).createRemoteJWKSet(new URL(metadata.jwks_uri), { cooldownDuration: this.options.jwksCooldownMs ?? 30_000, cacheMaxAge: 10 * 60_000 });
      }
    }
    throw new ToolsearchError("upstream_unavailable", `No authorization server metadata with a jwks_uri at ${candidates.join(" or ")}; access tokens cannot be checked until the issuer answers.`);
  }
}

async function fetchJson(url: URL): Promise<Record<string, unknown> | undefined> {
  try {
    const response = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(5_000) });
    if (!response.ok) return undefined;
    const body = (await response.json()) as unknown;
    return typeof body === "object" && body !== null ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The strongest service scope among the token's `scope` (space separated) or `scp` (array) values. */
function highestScope(payload: JWTPayload): Scope | undefined {
  const granted = new Set([...stringList(payload.scope), ...stringList(payload.scp)]);
  return [...SCOPES].reverse().find((scope) => granted.has(`toolsearch:${scope}`));
}

/** A claim as a list of strings: an array of strings, or one string split on spaces and commas. */
function stringList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  if (typeof value === "string") return value.split(/[\s,]+/).filter(Boolean);
  return [];
}

function toolRules(value: unknown): Pick<TokenCaller, "toolsAllow" | "toolsDeny"> {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    return { ...("allow" in record ? { toolsAllow: stringList(record.allow) } : {}), ...("deny" in record ? { toolsDeny: stringList(record.deny) } : {}) };
  }
  // A configured claim the token lacks allows nothing: a missing claim must not widen what the caller sees.
  return { toolsAllow: stringList(value) };
}

/** jose's failure as a 401 that says which rule the token broke (never the token itself). */
function refusal(error: unknown, audience: string, joseErrors: JoseErrors): ToolsearchError {
  const [reason, message] = reasonOf(error, audience, joseErrors);
  if (reason === "issuer_unreachable") return new ToolsearchError("upstream_unavailable", message);
  return new ToolsearchError("invalid_token", `Access token refused: ${message}`, { details: { reason } });
}

function reasonOf(error: unknown, audience: string, joseErrors: JoseErrors): [string, string] {
  if (error instanceof joseErrors.JWTExpired) return ["expired", "it has expired (exp)."];
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === "iss") return ["wrong_issuer", "it was issued by another issuer than --oauth-issuer."];
    if (error.claim === "aud") return ["wrong_audience", `its audience (aud) is not ${JSON.stringify(audience)}.`];
    if (error.claim === "nbf") return ["not_yet_valid", "it is not valid yet (nbf)."];
    return ["invalid_claims", `its ${error.claim} claim is invalid.`];
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return ["algorithm_not_allowed", `its algorithm is not one of ${ALGORITHMS.join(", ")} (unsigned tokens are never accepted).`];
  if (error instanceof joseErrors.JWKSNoMatchingKey) return ["unknown_key", "it is signed by a key the issuer's JWKS does not hold."];
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return ["bad_signature", "its signature does not verify."];
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid || error instanceof TypeError) {
    return ["issuer_unreachable", "The issuer's JWKS could not be fetched; access tokens cannot be checked right now."];
  }
  return ["malformed", "it is not a well-formed signed JWT."];
}
