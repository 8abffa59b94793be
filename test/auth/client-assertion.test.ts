/**
 * private_key_jwt assertions (RFC 7523) as the gateway signs them: checked with jose against the public key, the way
 * an authorization server checks them; bad keys are refused with config_invalid and never quoted.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { clientAssertionAuth, type ClientAssertionOptions } from "../../src/auth/client-assertion.js";
import { checkClientKeys } from "../../src/auth/key-check.js";
import { type HttpServerConfig, loadGatewayConfig } from "../../src/mcp/config.js";
import { runCli } from "../helpers/cli.js";
import { StoredOAuthProvider } from "../../src/auth/upstream-oauth.js";
import { ToolsearchError } from "../../src/errors.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const issuer = "https://auth.example.test";
const tokenUrl = new URL(`${issuer}/token`);

/** Runs one token request's client authentication and returns the form it produced. */
async function sign(options: ClientAssertionOptions): Promise<URLSearchParams> {
  const params = new URLSearchParams({ grant_type: "client_credentials" });
  await clientAssertionAuth(options)(new Headers(), params, tokenUrl, { issuer, token_endpoint: tokenUrl.href } as never);
  return params;
}

async function verify(params: URLSearchParams, publicKey: KeyObject, alg: string) {
  assert.equal(params.get("client_assertion_type"), "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
  const assertion = params.get("client_assertion")!;
  assert.equal(decodeProtectedHeader(assertion).alg, alg);
  const { payload } = await jwtVerify(assertion, publicKey, { issuer: "crm-bot", subject: "crm-bot", audience: issuer });
  assert.ok(payload.jti, "each assertion has an id (replay protection)");
  assert.ok(payload.exp! > payload.iat! && payload.exp! - payload.iat! <= 60, "short-lived");
}

/** The error a promise rejects with, which must be a config_invalid that does not quote `secret`. */
async function refusal(promise: Promise<unknown>, secret: string): Promise<ToolsearchError> {
  const error = await promise.then(() => assert.fail("expected a refusal"), (e: unknown) => e);
  assert.ok(error instanceof ToolsearchError, String(error));
  assert.equal(error.code, "config_invalid");
  assert.ok(!error.message.includes(secret), error.message);
  return error;
}

describe("private_key_jwt client assertions", () => {
  test("an EC key in SEC1 PEM signs ES256 by default; the assertion verifies with the public key", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const params = await sign({ clientId: "crm-bot", privateKey: privateKey.export({ type: "sec1", format: "pem" }).toString() });
    await verify(params, publicKey, "ES256");
  });

  test("an RSA key in PKCS#1 PEM from a file signs RS256, or PS256 when asked", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const file = join(makeTempDir("toolsearch-assertion-"), "client.pem");
    writeFileSync(file, privateKey.export({ type: "pkcs1", format: "pem" }));
    await verify(await sign({ clientId: "crm-bot", privateKeyFile: file }), publicKey, "RS256");
    await verify(await sign({ clientId: "crm-bot", privateKeyFile: file, signingAlgorithm: "PS256" }), publicKey, "PS256");
  });

  test("an Ed25519 key signs EdDSA", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    await verify(await sign({ clientId: "crm-bot", privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString() }), publicKey, "EdDSA");
  });

  test("bad keys are config_invalid and never quoted", async () => {
    const garbage = "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5IGF0IGFsbA-secret-looking-text\n-----END PRIVATE KEY-----\n";
    await refusal(sign({ clientId: "crm-bot", privateKey: garbage }), "secret-looking-text");
    const missing = await refusal(sign({ clientId: "crm-bot", privateKeyFile: "/nonexistent/client.pem" }), "BEGIN");
    assert.match(missing.message, /oauth\.privateKeyFile "\/nonexistent\/client\.pem" cannot be read \(ENOENT\)/);
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const mismatch = await refusal(sign({ clientId: "crm-bot", privateKey: rsa, signingAlgorithm: "ES256" }), rsa.split("\n")[1]!);
    assert.match(mismatch.message, /oauth\.signingAlgorithm ES256 cannot sign/);
  });

  test("the upstream provider signs only when a key is configured, and says so in its metadata", () => {
    const store = { getSecret: async () => undefined, putSecret: async () => undefined, deleteSecrets: async () => undefined };
    const pem = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const keyed = new StoredOAuthProvider(store, "oauth:gateway:crm", { grant: "client_credentials", clientId: "crm-bot", privateKey: pem });
    assert.equal(typeof keyed.addClientAuthentication, "function");
    assert.equal(keyed.clientMetadata.token_endpoint_auth_method, "private_key_jwt");
    const secret = new StoredOAuthProvider(store, "oauth:gateway:crm", { grant: "client_credentials", clientId: "crm-bot", clientSecret: "s3cret" });
    assert.equal(secret.addClientAuthentication, undefined);
    assert.equal(secret.clientMetadata.token_endpoint_auth_method, "client_secret_basic");
  });
});

describe("private_key_jwt keys at gateway start", () => {
  const dir = makeTempDir("toolsearch-key-check-");
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  mkdirSync(join(dir, "keys"));
  writeFileSync(join(dir, "keys", "crm.pem"), privateKey.export({ type: "sec1", format: "pem" }));
  writeFileSync(join(dir, "keys", "garbage.pem"), "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n");
  const server = (oauth: Record<string, string>) => ({ url: "https://mcp.example.test/mcp", oauth: { grant: "client_credentials", clientId: "bot", ...oauth } });

  test("a relative privateKeyFile is read from the configuration file's directory, whatever the working directory", async () => {
    const file = join(dir, "mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { crm: server({ privateKeyFile: "keys/crm.pem" }), env: server({ privateKeyFile: "${KEY_FILE}" }) } }));
    process.env.KEY_FILE = join(dir, "keys", "crm.pem");
    const config = loadGatewayConfig(file);
    const oauth = (name: string) => (config.mcpServers[name] as HttpServerConfig).oauth!;
    assert.equal(oauth("crm").privateKeyFile, join(dir, "keys", "crm.pem"));
    assert.equal(oauth("env").privateKeyFile, "${KEY_FILE}", "a path from a variable is the variable's");
    await checkClientKeys(config, file);
    delete process.env.KEY_FILE;
  });

  test("a missing or garbage key file is config_invalid naming the file, server and field; the key is never quoted", async () => {
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { crm: server({ privateKeyFile: "keys/missing.pem" }), tickets: server({ privateKeyFile: "keys/garbage.pem" }), ok: server({ privateKeyFile: "keys/crm.pem" }) } }));
    const error = await checkClientKeys(loadGatewayConfig(file), file).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ToolsearchError && error.code === "config_invalid", String(error));
    assert.match(error.message, /bad\.json: configuration refused \(2 problems\)/);
    assert.match(error.message, /server "crm": oauth\.privateKeyFile ".*keys\/missing\.pem" cannot be read \(ENOENT\)/);
    assert.match(error.message, /server "tickets": oauth\.privateKey is not a PEM private key/);
    assert.deepEqual(error.problems.map((p) => p.name).sort(), ["crm", "tickets"]);
    assert.doesNotMatch(error.message, /not a key/);
  });

  test("the real gateway refuses to start with a bad key: config_invalid, not an upstream that is down", () => {
    const file = join(dir, "gateway.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { crm: server({ privateKeyFile: "keys/garbage.pem" }) } }));
    const result = runCli(["mcp", "--config", file, "--store", join(dir, "store.sqlite"), "--json"]);
    assert.equal(result.code, 1);
    const { error } = JSON.parse(result.stderr.trim().split("\n").at(-1)!) as { error: { code: string; message: string } };
    assert.equal(error.code, "config_invalid");
    assert.match(error.message, /server "crm": oauth\.privateKey is not a PEM private key/);
    assert.doesNotMatch(result.stderr, /upstream_unavailable|not a key/);
  });
});
