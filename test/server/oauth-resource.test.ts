/**
 * `serve --oauth-issuer`: the service accepts JWT access tokens of a real OpenID provider (oidc-provider on loopback)
 * beside API keys, refuses every bad token with 401 `invalid_token` (never 500), announces its issuer in
 * `/.well-known/oauth-protected-resource`, and the official MCP SDK client finds the issuer from a 401 alone.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { base64url, importJWK, type JWTPayload, SignJWT } from "jose";
import { foundNames } from "../mcp/helpers.js";
import { signingKey, startIssuer, type TestClient, type TestIssuer } from "../helpers/oidc.js";
import { makeService, type TestService, weatherTools } from "./helpers.js";

const reader: TestClient = { id: "reader", secret: "reader-secret-0123456789", scope: "toolsearch:read", collections: ["*"] };
const writer: TestClient = { id: "writer", secret: "writer-secret-0123456789", scope: "toolsearch:read toolsearch:write", collections: ["weather"] };

describe("the service as an OAuth protected resource", () => {
  let idp: TestIssuer;
  let s: TestService;
  let base: string;
  let resource: string;

  before(async () => {
    idp = await startIssuer([reader, writer]);
    s = await makeService({ oauth: { issuer: idp.issuer, collectionsClaim: "collections", jwksCooldownMs: 0 } });
    base = await s.app.listen({ port: 0, host: "127.0.0.1" });
    resource = `${base}/`;
    const put = (name: string) =>
      fetch(`${base}/v1/collections/${name}`, { method: "PUT", headers: { ...s.auth(s.keys.write), "content-type": "application/json" }, body: JSON.stringify({ kind: "tools", tools: weatherTools() }) });
    assert.equal((await put("weather")).status, 201);
    assert.equal((await put("finance")).status, 201);
  });
  after(async () => {
    await s.close();
    await idp.close();
  });

  const search = (token: string, collection = "weather") =>
    fetch(`${base}/v1/collections/${collection}/search`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ query: "currency conversion" }) });

  /** A token signed with the provider's own key, with claims of our choosing (for the rules the provider keeps). */
  async function forged(claims: JWTPayload, key = idp.signingKey): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: "toolsearch:read", collections: "*", ...claims })
      .setProtectedHeader({ alg: "ES256", kid: key.kid!, typ: "at+jwt" })
      .setIssuer((claims.iss as string | undefined) ?? idp.issuer)
      .setAudience((claims.aud as string | undefined) ?? resource)
      .setSubject("forged-user")
      .setIssuedAt(now)
      .setExpirationTime((claims.exp as number | undefined) ?? now + 300)
      .sign(await importJWK(key, "ES256"));
  }

  async function refusal(response: Response): Promise<{ status: number; code: string; reason?: string; challenge: string | null }> {
    const body = (await response.json()) as { error: { code: string; details?: { reason?: string } } };
    return { status: response.status, code: body.error.code, reason: body.error.details?.reason, challenge: response.headers.get("www-authenticate") };
  }

  test("the protected resource metadata names the issuer, and a 401 points at it", async () => {
    const metadata = (await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>;
    assert.deepEqual(metadata.authorization_servers, [idp.issuer]);
    assert.equal(metadata.resource, resource);
    assert.ok((metadata.scopes_supported as string[]).includes("toolsearch:read"));
    for (const path of ["/v1/collections", "/mcp/weather"]) {
      const response = await fetch(`${base}${path}`, { method: path.startsWith("/mcp") ? "POST" : "GET" });
      assert.equal(response.status, 401, path);
      assert.equal(response.headers.get("www-authenticate"), `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`, path);
    }
  });

  test("a toolsearch:read token from the provider searches and cannot write (403 naming the scope to step up to)", async () => {
    const token = await idp.token(reader, resource);
    const found = await search(token);
    assert.equal(found.status, 200);
    assert.equal(((await found.json()) as { results: Array<{ name: string }> }).results[0]?.name, "convert_currency");
    const write = await fetch(`${base}/v1/collections/weather/tools/aurora`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "aurora", description: "Aurora alerts.", input_schema: { type: "object" } }),
    });
    const refused = await refusal(write);
    assert.equal(refused.status, 403);
    assert.equal(refused.code, "forbidden");
    assert.match(refused.challenge ?? "", /error="insufficient_scope", scope="toolsearch:write"/);
  });

  test("a toolsearch:write token writes; API keys keep working beside tokens", async () => {
    const token = await idp.token(writer, resource);
    const tool = { name: "aurora", description: "Aurora alerts.", input_schema: { type: "object" } };
    const write = await fetch(`${base}/v1/collections/weather/tools/aurora`, { method: "PUT", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(tool) });
    assert.equal(write.status, 201);
    assert.equal((await search(s.keys.read)).status, 200);
  });

  test("a token for another audience is 401 invalid_token", async () => {
    const token = await idp.token(reader, "http://other.example/");
    assert.deepEqual(await refusal(await search(token)), { status: 401, code: "invalid_token", reason: "wrong_audience", challenge: `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource", error="invalid_token"` });
  });

  test("wrong issuer, expired, not yet valid, unsigned and unknown-key tokens are 401 with their reason", async () => {
    const now = Math.floor(Date.now() / 1000);
    const unsigned = `${base64url.encode(JSON.stringify({ alg: "none" }))}.${base64url.encode(JSON.stringify({ iss: idp.issuer, aud: resource, sub: "x", scope: "toolsearch:admin", exp: now + 300 }))}.`;
    const cases: Array<[string, string]> = [
      [await forged({ iss: "http://127.0.0.1:1/other" }), "wrong_issuer"],
      [await forged({ exp: now - 120 }), "expired"],
      [await forged({ nbf: now + 600 }), "not_yet_valid"],
      [unsigned, "algorithm_not_allowed"],
      [await forged({}, await signingKey("stranger")), "unknown_key"],
    ];
    for (const [token, reason] of cases) {
      const refused = await refusal(await search(token));
      assert.deepEqual([refused.status, refused.code, refused.reason], [401, "invalid_token", reason], reason);
    }
  });

  test("keys the provider rotates to are picked up", async () => {
    await idp.rotate();
    const token = await idp.token(reader, resource);
    assert.equal(JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()).kid, idp.signingKey.kid);
    assert.equal((await search(token)).status, 200);
  });

  test("the collections claim limits a token to those collections, in listings too", async () => {
    const token = await forged({ collections: ["weather"] });
    assert.equal((await search(token)).status, 200);
    assert.equal((await refusal(await search(token, "finance"))).status, 403);
    const listed = (await (await fetch(`${base}/v1/collections`, { headers: { authorization: `Bearer ${token}` } })).json()) as { collections: Array<{ name: string }> };
    assert.deepEqual(listed.collections.map((c) => c.name), ["weather"]);
    const none = await forged({ collections: undefined });
    assert.equal((await refusal(await search(none))).status, 403);
  });

  test("the official MCP SDK client discovers the issuer from the 401 alone and searches over /mcp/{c}", async () => {
    const authProvider = new ClientCredentialsProvider({ clientId: reader.id, clientSecret: reader.secret, scope: "toolsearch:read" });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/weather`), { authProvider });
    const client = new Client({ name: "oauth-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      assert.ok(authProvider.tokens()?.access_token, "the SDK obtained a token from the issuer it discovered");
      const found = foundNames(await client.callTool({ name: "search_tools", arguments: { query: "currency conversion" } }));
      assert.equal(found[0], "convert_currency");
    } finally {
      await client.close();
    }
  });
});
