/**
 * Credentials for imported APIs (SPEC §13): `{"bearer": T}`, `{"basic": {"username", "password"}}` or `{"apiKey": V}`,
 * with `${VAR}` (or `${VAR:-default}`) filled from the environment, and placed on a request the way the document's
 * security schemes say. Secrets never appear in messages: errors name the field and the variable only.
 */
import { ToolsearchError } from "../errors.js";
import { expandVariables } from "../text/env-variables.js";

/** Credentials for one API. */
export interface OpenApiAuth {
  bearer?: string;
  basic?: { username: string; password: string };
  /** Placed where the document's apiKey scheme says (header, query or cookie, under its name). */
  apiKey?: string;
}

/** Where credentials go on one request. */
export interface AuthPlacement {
  headers: Record<string, string>;
  query: [string, string][];
  cookies: [string, string][];
}

/** Replaces `${VAR}` and `${VAR:-default}` with values from `env`; a variable that is unset or empty is a `config_invalid`. */
export function expandEnv(value: string, env: NodeJS.ProcessEnv, field: string): string {
  return expandVariables(value, env, {
    emptyIsUnset: true, // an empty credential is never meant: name the variable rather than send an empty token
    onMissing: (name) => {
      throw new ToolsearchError("config_invalid", `${field} refers to \${${name}}, which is not set in the environment`);
    },
  });
}

/**
 * Checks a configured `auth` value and fills its variables. `where` names it in messages (e.g. `openapi "clinic": auth`).
 *
 * @example
 * ```ts
 * resolveAuth({ bearer: "${CLINIC_TOKEN}" }, process.env, 'openapi "clinic": auth'); // { bearer: "…" }
 * ```
 */
export function resolveAuth(value: unknown, env: NodeJS.ProcessEnv, where: string): OpenApiAuth | undefined {
  if (value === undefined) return undefined;
  const shape = `must be one of {"bearer": TOKEN}, {"basic": {"username", "password"}}, {"apiKey": KEY}`;
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ToolsearchError("config_invalid", `${where} ${shape}`);
  const keys = Object.keys(value);
  if (keys.length !== 1 || !["bearer", "basic", "apiKey"].includes(keys[0]!)) throw new ToolsearchError("config_invalid", `${where} ${shape} (found ${keys.map((k) => JSON.stringify(k)).join(", ") || "no field"})`);
  const record = value as Record<string, unknown>;
  if (typeof record.bearer === "string") return { bearer: expandEnv(record.bearer, env, `${where}.bearer`) };
  if (typeof record.apiKey === "string") return { apiKey: expandEnv(record.apiKey, env, `${where}.apiKey`) };
  const basic = record.basic as { username?: unknown; password?: unknown } | undefined;
  if (basic && typeof basic.username === "string" && typeof basic.password === "string") {
    return { basic: { username: expandEnv(basic.username, env, `${where}.basic.username`), password: expandEnv(basic.password, env, `${where}.basic.password`) } };
  }
  throw new ToolsearchError("config_invalid", `${where}.${keys[0]} must be a string${keys[0] === "basic" ? ' pair {"username": …, "password": …}' : ""}`);
}

/** What kind of credential a security scheme asks for, or undefined when toolsearch cannot supply it. */
function credentialFor(scheme: Record<string, unknown> | undefined): "bearer" | "basic" | "apiKey" | undefined {
  if (!scheme) return undefined;
  if (scheme.type === "apiKey") return "apiKey";
  if (scheme.type === "http" && String(scheme.scheme).toLowerCase() === "basic") return "basic";
  if (scheme.type === "http" && String(scheme.scheme).toLowerCase() === "bearer") return "bearer";
  if (scheme.type === "oauth2" || scheme.type === "openIdConnect") return "bearer"; // a token obtained elsewhere
  return undefined;
}

/**
 * Places the credentials for one operation. `security` is the operation's requirement list (undefined when the
 * document declares none: then the configured credential is sent as its kind says). Throws `config_invalid` when
 * the operation needs a credential that is not configured.
 */
export function placeAuth(
  auth: OpenApiAuth | undefined, security: Record<string, string[]>[] | undefined, schemes: Record<string, Record<string, unknown>>,
): AuthPlacement {
  const placement: AuthPlacement = { headers: {}, query: [], cookies: [] };
  if (security === undefined) {
    if (!auth) return placement;
    const apiKeyScheme = Object.entries(schemes).find(([, s]) => s.type === "apiKey");
    if (auth.apiKey !== undefined && !apiKeyScheme) throw new ToolsearchError("config_invalid", `auth.apiKey is set but the document has no apiKey security scheme saying where the key goes`);
    apply(placement, auth, auth.apiKey !== undefined ? apiKeyScheme![1] : { type: "http", scheme: auth.bearer !== undefined ? "bearer" : "basic" });
    return placement;
  }
  if (security.length === 0 || security.some((r) => Object.keys(r).length === 0)) return placement; // public
  const usable = security.find((requirement) => Object.keys(requirement).every((name) => {
    const kind = credentialFor(schemes[name]);
    return kind !== undefined && auth?.[kind] !== undefined;
  }));
  if (!usable) {
    const needs = security.map((r) => Object.keys(r).map((n) => `${n} (${credentialFor(schemes[n]) ?? String(schemes[n]?.type ?? "unknown scheme")})`).join(" + ")).join(" or ");
    throw new ToolsearchError("config_invalid", `this operation needs ${needs}, and no such credential is configured: add "auth" to the API's configuration`);
  }
  for (const name of Object.keys(usable)) apply(placement, auth!, schemes[name]!);
  return placement;
}

function apply(placement: AuthPlacement, auth: OpenApiAuth, scheme: Record<string, unknown>): void {
  const kind = credentialFor(scheme);
  if (kind === "apiKey" && auth.apiKey !== undefined) {
    const name = String(scheme.name ?? "X-API-Key");
    if (scheme.in === "query") placement.query.push([name, auth.apiKey]);
    else if (scheme.in === "cookie") placement.cookies.push([name, auth.apiKey]);
    else placement.headers[name] = auth.apiKey;
  } else if (kind === "basic" && auth.basic) {
    placement.headers.Authorization = `Basic ${Buffer.from(`${auth.basic.username}:${auth.basic.password}`).toString("base64")}`;
  } else if (kind === "bearer" && auth.bearer !== undefined) {
    placement.headers.Authorization = `Bearer ${auth.bearer}`;
  }
}
