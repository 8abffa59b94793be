/**
 * A real OpenID provider (`oidc-provider`) on loopback for the OAuth tests: client credentials, resource indicators
 * (RFC 8707) issuing JWT access tokens whose `aud` is the requested resource. `rotate` swaps in a provider with a new
 * signing key at the same issuer URL, as an identity provider rotating its keys would.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import Provider from "oidc-provider";

/** A confidential client of the test provider, allowed some `toolsearch:*` scopes. */
export interface TestClient {
  id: string;
  /** Its client_secret_basic secret (not registered when `jwks` is set). */
  secret: string;
  /** A private_key_jwt client (RFC 7523): its public keys are registered instead of the secret. */
  jwks?: JWK[];
  scope: string;
  /** Put in the tokens' `collections` claim. */
  collections?: string[];
  /**
   * A public native client for a person's login (authorization code + PKCE, refresh tokens): its loopback redirect
   * URIs (any port matches, RFC 8252). A person "alice" logs in and consents to whatever is asked, without a form.
   */
  redirectUris?: string[];
}

/** How the test provider issues tokens. */
export interface IssuerOptions {
  /** Lifetime of access tokens in seconds (default 300). */
  accessTokenTTL?: number;
}

export interface TestIssuer {
  issuer: string;
  /** The private signing key now in use (to forge tokens the provider would sign the same way). */
  signingKey: JWK;
  /** A client-credentials access token for `resource`. */
  token(client: TestClient, resource: string, scope?: string): Promise<string>;
  /** How many token requests the provider has answered (tells a reused token from a new one). */
  readonly tokenRequests: number;
  /** Successful token grants by `grant_type` (authorization_code, refresh_token, client_credentials). */
  readonly grants: Readonly<Record<string, number>>;
  /** Starts signing with a fresh key (the JWKS then holds the new and the old key). */
  rotate(): Promise<void>;
  close(): Promise<void>;
}

export async function signingKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: "ES256", use: "sig" };
}

/** Starts the provider on 127.0.0.1 with these clients (each may use client_credentials). */
export async function startIssuer(clients: TestClient[], options: IssuerOptions = {}): Promise<TestIssuer> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  let provider!: Provider;
  let tokenRequests = 0;
  const grants: Record<string, number> = {};
  const server: Server = createServer((req, res) => {
    if (req.method === "POST" && req.url?.startsWith("/token")) tokenRequests++;
    if (req.url?.startsWith("/interaction/")) return void consent(provider, req, res).catch((error: Error) => res.writeHead(400).end(error.message));
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let keys = [await signingKey("k1")];
  const make = () =>
    new Provider(issuer, {
      clients: clients.map((c) => c.redirectUris
        ? { client_id: c.id, application_type: "native", token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], redirect_uris: c.redirectUris, response_types: ["code"], scope: c.scope, id_token_signed_response_alg: "ES256" }
        : {
          client_id: c.id,
          ...(c.jwks ? { token_endpoint_auth_method: "private_key_jwt", jwks: { keys: c.jwks } } : { client_secret: c.secret }),
          grant_types: ["client_credentials"], redirect_uris: [], response_types: [], scope: c.scope, id_token_signed_response_alg: "ES256" }),
      // Refresh tokens without `offline_access`: what the login under test must use once its access token expires.
      issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed("refresh_token"),
      jwks: { keys },
      extraTokenClaims: (_ctx: unknown, token: { clientId?: string }) => {
        const collections = clients.find((c) => c.id === token.clientId)?.collections;
        return collections ? { collections } : {};
      },
      scopes: ["openid", "toolsearch:read", "toolsearch:call", "toolsearch:write", "toolsearch:admin"],
      features: {
        clientCredentials: { enabled: true },
        devInteractions: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => undefined,
          getResourceServerInfo: (_ctx, resource) => ({
            scope: "toolsearch:read toolsearch:call toolsearch:write toolsearch:admin",
            audience: resource,
            accessTokenFormat: "jwt",
            accessTokenTTL: options.accessTokenTTL ?? 300,
            jwt: { sign: { alg: "ES256" } },
          }),
        },
      },
    });
  const use = () => {
    provider = make();
    provider.on("server_error", () => undefined);
    provider.on("grant.success", (ctx: unknown) => {
      const type = (ctx as { oidc: { params: { grant_type: string } } }).oidc.params.grant_type;
      grants[type] = (grants[type] ?? 0) + 1;
    });
    handler = provider.callback();
  };
  use();
  return {
    issuer,
    get signingKey() {
      return keys[0]!;
    },
    get tokenRequests() {
      return tokenRequests;
    },
    get grants() {
      return { ...grants };
    },
    async token(client, resource, scope = client.scope) {
      const response = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: { authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString("base64")}`, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "client_credentials", scope, resource }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async rotate() {
      keys = [await signingKey(`k${keys.length + 1}`), ...keys];
      use();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The interaction of a login: "alice" signs in, then consents to exactly the scopes and resources asked for. */
async function consent(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === "login") return provider.interactionFinished(req, res, { login: { accountId: "alice" } }, { mergeWithLastSubmission: false });
  const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant!.addOIDCScope(missing.missingOIDCScope.join(" "));
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant!.addResourceScope(resource, scopes.join(" "));
  const grantId = await grant!.save();
  return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}
