/**
 * The gateway as an OAuth client (SPEC §15), through the real `toolsearch mcp call|logout` commands. The upstream is
 * the service itself run as an OAuth-protected resource (`/mcp/{c}` with `--oauth-issuer`) of a real OpenID provider
 * (oidc-provider on loopback): a machine account gets its token once and keeps using it from the sealed store across
 * processes; a server that needs a person fails at once, naming the login command.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { SecretBox, Secrets, loadSecretKey } from "../../src/auth/secrets.js";
import { oauthOwner } from "../../src/auth/upstream-oauth.js";
import { openStore } from "../../src/store/open.js";
import { startIssuer, type TestClient, type TestIssuer } from "../helpers/oidc.js";
import { runCliAsync as cli } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { makeService, type TestService, weatherTools } from "../server/helpers.js";

const machine: TestClient = { id: "machine", secret: "machine-secret-0123456789", scope: "toolsearch:read toolsearch:call", collections: ["*"] };
// A machine account that authenticates with a private key (private_key_jwt); SEC1 PEM, as `openssl ecparam -genkey` writes it.
const signer = generateKeyPairSync("ec", { namedCurve: "P-256" });
const signerKeyPem = signer.privateKey.export({ type: "sec1", format: "pem" }).toString();
const keyed: TestClient = { id: "keyed", secret: "unused", scope: "toolsearch:read toolsearch:call", collections: ["*"], jwks: [{ ...signer.publicKey.export({ format: "jwk" }), alg: "ES256", use: "sig" }] };


describe("remote upstreams that require OAuth", () => {
  let idp: TestIssuer;
  let s: TestService;
  let home: string;
  let config: string;
  let env: Record<string, string>;

  before(async () => {
    idp = await startIssuer([machine, keyed]);
    s = await makeService({ oauth: { issuer: idp.issuer } });
    const base = await s.app.listen({ port: 0, host: "127.0.0.1" });
    const put = await fetch(`${base}/v1/collections/weather`, { method: "PUT", headers: { ...s.auth(s.keys.write), "content-type": "application/json" }, body: JSON.stringify({ kind: "tools", tools: weatherTools() }) });
    assert.equal(put.status, 201);
    home = makeTempDir("toolsearch-oauth-home-");
    config = join(home, "mcp.json");
    writeFileSync(config, JSON.stringify({
      mcpServers: {
        machine: { url: `${base}/mcp/weather`, oauth: { grant: "client_credentials", clientId: machine.id, clientSecret: "${MACHINE_SECRET}", scopes: ["toolsearch:read", "toolsearch:call"] } },
        keyed: { url: `${base}/mcp/weather`, oauth: { grant: "client_credentials", clientId: keyed.id, privateKey: "${KEYED_PRIVATE_KEY}", scopes: ["toolsearch:read", "toolsearch:call"] } },
        person: { url: `${base}/mcp/weather` },
      },
    }));
    env = { TOOLSEARCH_HOME: home, MACHINE_SECRET: machine.secret, KEYED_PRIVATE_KEY: signerKeyPem };
  });
  after(async () => {
    await s.close();
    await idp.close();
  });

  const search = ["search_tools", "--args", JSON.stringify({ query: "currency conversion" }), "--config"];

  test("client_credentials: the token is fetched once, sealed in the store, and reused by the next process", async () => {
    const first = await cli(["mcp", "call", "machine", ...search, config], env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /convert_currency/);
    const requests = idp.tokenRequests;
    const second = await cli(["mcp", "call", "machine", ...search, config], env);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /convert_currency/);
    assert.equal(idp.tokenRequests, requests, "the second process used the stored token");

    const storePath = join(home, "store.sqlite");
    const store = await openStore(storePath);
    const tokens = await new Secrets(store, new SecretBox(loadSecretKey({ env }))).get<{ access_token: string }>(oauthOwner("gateway", "machine"), "tokens");
    await store.close();
    assert.ok(tokens?.access_token);
    const raw = ["", "-wal"].map((suffix) => { try { return readFileSync(`${storePath}${suffix}`).toString("latin1"); } catch { return ""; } }).join("");
    assert.ok(raw.includes(oauthOwner("gateway", "machine")), "the grep reads the store's bytes");
    assert.ok(!raw.includes(tokens.access_token), "the access token is not readable in the store file");
    assert.ok(!raw.includes(machine.secret), "nor the client secret");
  });

  test("client_credentials with private_key_jwt: the provider accepts the signed assertion; the key is never stored or shown", async () => {
    const requests = idp.tokenRequests;
    const result = await cli(["mcp", "call", "keyed", ...search, config], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /convert_currency/);
    assert.equal(idp.tokenRequests, requests + 1);
    const storePath = join(home, "store.sqlite");
    const raw = ["", "-wal"].map((suffix) => { try { return readFileSync(`${storePath}${suffix}`).toString("latin1"); } catch { return ""; } }).join("");
    const body = signerKeyPem.split("\n")[1]!;
    assert.ok(raw.includes(oauthOwner("gateway", "keyed")), "the grep reads the store's bytes");
    assert.ok(!raw.includes(body) && !result.stdout.includes(body) && !result.stderr.includes(body), "the private key is nowhere");
  });

  test("a server that needs a person: the call fails at once with login_required naming the command", async () => {
    const result = await cli(["mcp", "call", "person", ...search, config, "--json"], env);
    assert.equal(result.code, 1);
    const error = JSON.parse(result.stderr.trim().split("\n").at(-1)!) as { error: { code: string; message: string } };
    assert.equal(error.error.code, "login_required");
    assert.match(error.error.message, /toolsearch mcp login person/);
  });

  test("mcp logout forgets the tokens", async () => {
    const result = await cli(["mcp", "logout", "machine", "--config", config], env);
    assert.equal(result.code, 0, result.stderr);
    const store = await openStore(join(home, "store.sqlite"));
    assert.equal(await store.getSecret(oauthOwner("gateway", "machine"), "tokens"), undefined);
    await store.close();
  });
});
