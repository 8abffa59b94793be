/**
 * A person's login to an OAuth-protected upstream (SPEC §15), end to end with real parts: the upstream is the service's
 * `/mcp/weather` run as a protected resource of a real OpenID provider (oidc-provider on loopback) whose access tokens
 * live 2 s; `toolsearch mcp login --no-browser` does authorization code + PKCE + resource once; afterwards calls
 * through `mcp call` (a new process each time) and through the real gateway (`toolsearch mcp` over stdio) keep working
 * after restarts and after the access token expired, by refresh tokens alone — never a second authorization.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { decodeJwt } from "jose";
import { SecretBox, Secrets, loadSecretKey } from "../../src/auth/secrets.js";
import { oauthOwner, StoredOAuthProvider } from "../../src/auth/upstream-oauth.js";
import { loginStatus } from "../../src/auth/login-status.js";
import { openStore } from "../../src/store/open.js";
import { startIssuer, type TestClient, type TestIssuer } from "../helpers/oidc.js";
import { runCliAsync as cli } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { MAIN, makeService, type TestService, weatherTools } from "../server/helpers.js";

/** A public native client; the loopback redirect matches on any port (RFC 8252), as each login picks a free one. */
const app: TestClient = { id: "desktop", secret: "", scope: "toolsearch:read toolsearch:call toolsearch:write toolsearch:admin", redirectUris: ["http://127.0.0.1/callback"] };
/** The service accepts a token up to this long after `exp` (src/auth/oauth-resource.ts). */
const CLOCK_TOLERANCE_S = 5;


describe("an upstream that needs a person's login: login once, then refresh", () => {
  let idp: TestIssuer;
  let s: TestService;
  let base: string;
  let home: string;
  let config: string;
  let storePath: string;
  let env: Record<string, string>;

  before(async () => {
    idp = await startIssuer([app], { accessTokenTTL: 2 });
    s = await makeService({ oauth: { issuer: idp.issuer } });
    base = await s.app.listen({ port: 0, host: "127.0.0.1" });
    const put = await fetch(`${base}/v1/collections/weather`, { method: "PUT", headers: { ...s.auth(s.keys.write), "content-type": "application/json" }, body: JSON.stringify({ kind: "tools", tools: weatherTools() }) });
    assert.equal(put.status, 201);
    home = makeTempDir("toolsearch-oauth-login-");
    config = join(home, "mcp.json");
    storePath = join(home, "store.sqlite");
    writeFileSync(config, JSON.stringify({ mcpServers: { crm: { url: `${base}/mcp/weather`, oauth: { clientId: app.id, scopes: ["toolsearch:read", "toolsearch:call"] } } } }));
    env = { TOOLSEARCH_HOME: home }; // the key file under TOOLSEARCH_HOME seals the tokens
  });
  after(async () => {
    await s.close();
    await idp.close();
  });

  const stored = async () => {
    const store = await openStore(storePath);
    try {
      return await new Secrets(store, new SecretBox(loadSecretKey({ env: { TOOLSEARCH_HOME: home } }))).get<{ access_token: string; refresh_token?: string }>(oauthOwner("gateway", "crm"), "tokens");
    } finally {
      await store.close();
    }
  };
  /** Waits until the service refuses the stored access token (its `exp` plus the service's tolerance are past). */
  const untilExpired = async () => {
    const { exp } = decodeJwt((await stored())!.access_token);
    while (Date.now() / 1000 <= exp! + CLOCK_TOLERANCE_S + 1) await sleep(250);
  };
  const search = ["search_tools", "--args", JSON.stringify({ query: "currency conversion" }), "--config"];

  test("mcp login --no-browser authorizes once (code + PKCE + resource) and stores a refresh token", async () => {
    const before = await cli(["mcp", "call", "crm", ...search, config, "--json"], env);
    assert.equal(before.code, 1);
    assert.match(before.stderr, /login_required/);
    const login = await cli(["mcp", "login", "crm", "--no-browser", "--config", config], env);
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, /logged in to crm/);
    assert.equal(idp.grants.authorization_code, 1);
    const tokens = await stored();
    assert.ok(tokens?.access_token && tokens.refresh_token);
    assert.equal(decodeJwt(tokens.access_token).aud, `${base}/`, "the token is for the resource the upstream's metadata names (RFC 8707)");
  });

  test("mcp call in a new process after the access token expired: refreshed, not re-authorized", async () => {
    await untilExpired();
    const old = (await stored())!.access_token;
    const result = await cli(["mcp", "call", "crm", ...search, config], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /convert_currency/);
    assert.ok((idp.grants.refresh_token ?? 0) >= 1, "a refresh_token grant was made");
    assert.equal(idp.grants.authorization_code, 1, "no second authorization");
    assert.notEqual((await stored())!.access_token, old, "the refreshed token was stored");
  });

  test("the gateway (toolsearch mcp over stdio): restarted, it calls with the stored token; running, it refreshes", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: ["--import", "tsx", MAIN, "mcp", "--config", config, "--store", storePath], env: { ...process.env, ...env } as Record<string, string>, stderr: "ignore" });
    const client = new Client({ name: "upstream-login", version: "1.0.0" });
    await client.connect(transport);
    try {
      const callCrm = async () => {
        const result = await client.callTool({ name: "call_tool", arguments: { name: "crm__search_tools", arguments: { query: "currency conversion" } } });
        assert.ok(!result.isError, JSON.stringify(result.content));
        assert.match(JSON.stringify(result.content), /convert_currency/);
      };
      await callCrm();
      const refreshes = idp.grants.refresh_token ?? 0;
      await untilExpired();
      await callCrm();
      assert.ok((idp.grants.refresh_token ?? 0) > refreshes, "the running gateway refreshed");
      assert.equal(idp.grants.authorization_code, 1, "still one authorization");
    } finally {
      await client.close();
    }
  });

  test("refresh ahead of expiry: a provider due to refresh does it before handing out the token, once for concurrent calls", async () => {
    const saved = process.env.TOOLSEARCH_HOME;
    process.env.TOOLSEARCH_HOME = home; // the provider loads the sealing key from there, as the gateway does
    const store = await openStore(storePath);
    try {
      const old = (await stored())!.access_token;
      const refreshes = idp.grants.refresh_token ?? 0;
      // Longer ahead than any token lives: every token is due, whether or not the server would still accept it.
      const provider = new StoredOAuthProvider(store, oauthOwner("gateway", "crm"), { clientId: app.id, refreshAheadSeconds: 3600 });
      const [a, b] = await Promise.all([provider.tokens(), provider.tokens()]);
      assert.equal(idp.grants.refresh_token, refreshes + 1, "one refresh for both calls");
      assert.equal(a!.access_token, b!.access_token);
      assert.notEqual(a!.access_token, old);
      assert.equal((await stored())!.access_token, a!.access_token, "the refreshed tokens were stored");
      const result = await cli(["mcp", "call", "crm", ...search, config], env);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(idp.grants.authorization_code, 1, "still one authorization");
    } finally {
      await store.close();
      if (saved === undefined) delete process.env.TOOLSEARCH_HOME;
      else process.env.TOOLSEARCH_HOME = saved;
    }
  });

  test("reading the login state refreshes nothing, even for a token due to refresh", async () => {
    const saved = process.env.TOOLSEARCH_HOME;
    process.env.TOOLSEARCH_HOME = home;
    const store = await openStore(storePath);
    try {
      const before = (await stored())!;
      const refreshes = idp.grants.refresh_token ?? 0;
      // Due by this configuration: tokens() would refresh; the console's status read must not (it only reports).
      const status = await loginStatus(store, "gateway", "crm", { url: "http://127.0.0.1/unused", oauth: { clientId: app.id, refreshAheadSeconds: 3600 } });
      assert.equal(status.state, "logged_in");
      assert.equal(idp.grants.refresh_token ?? 0, refreshes, "no refresh grant");
      assert.equal((await stored())!.access_token, before.access_token, "the stored token is the same");
    } finally {
      await store.close();
      if (saved === undefined) delete process.env.TOOLSEARCH_HOME;
      else process.env.TOOLSEARCH_HOME = saved;
    }
  });

  test("the tokens are not readable in the raw store file or its WAL without the key", async () => {
    const tokens = (await stored())!;
    const raw = ["", "-wal"].map((suffix) => { try { return readFileSync(`${storePath}${suffix}`).toString("latin1"); } catch { return ""; } }).join("");
    assert.ok(raw.includes(oauthOwner("gateway", "crm")), "the grep reads the store's bytes");
    assert.ok(!raw.includes(tokens.access_token), "no access token");
    assert.ok(!raw.includes(tokens.refresh_token!), "no refresh token");
  });
});
