/** Secrets at rest: AES-256-GCM with a key from the environment or a 0600 key file; the raw store file never holds a token. */
import assert from "node:assert/strict";
import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadSecretKey, SecretBox, Secrets } from "../../src/auth/secrets.js";
import { ToolsearchError } from "../../src/errors.js";
import { openStore } from "../../src/store/open.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const HEX_KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

function code(error: unknown): string | undefined {
  return error instanceof ToolsearchError ? error.code : undefined;
}

describe("the secret key", () => {
  it("comes from TOOLSEARCH_SECRET_KEY as hex or base64, and a malformed one is refused", () => {
    assert.equal(loadSecretKey({ env: { TOOLSEARCH_SECRET_KEY: HEX_KEY } }).toString("hex"), HEX_KEY);
    const b64 = Buffer.from(HEX_KEY, "hex").toString("base64");
    assert.equal(loadSecretKey({ env: { TOOLSEARCH_SECRET_KEY: b64 } }).toString("hex"), HEX_KEY);
    assert.throws(() => loadSecretKey({ env: { TOOLSEARCH_SECRET_KEY: "short" } }), (e) => code(e) === "secret_key_invalid" && /TOOLSEARCH_SECRET_KEY must hold 32 bytes/.test((e as Error).message));
  });

  it("else is made once in TOOLSEARCH_HOME with mode 0600, and refused once others may read it", () => {
    const home = makeTempDir("toolsearch-key-");
    const first = loadSecretKey({ env: { TOOLSEARCH_HOME: home } });
    const file = join(home, "secret.key");
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(loadSecretKey({ env: { TOOLSEARCH_HOME: home } }), first, "the same key on the next start");
    chmodSync(file, 0o644);
    assert.throws(() => loadSecretKey({ env: { TOOLSEARCH_HOME: home } }), (e) => code(e) === "secret_key_invalid" && /chmod 600/.test((e as Error).message));
  });
});

describe("SecretBox", () => {
  const box = new SecretBox(Buffer.from(HEX_KEY, "hex"));

  it("opens what it sealed, only with the same context and key", () => {
    const sealed = box.seal("gho_secret", "gateway:a/tokens");
    assert.notEqual(sealed, box.seal("gho_secret", "gateway:a/tokens"), "a fresh IV every time");
    assert.equal(box.open(sealed, "gateway:a/tokens"), "gho_secret");
    assert.throws(() => box.open(sealed, "gateway:b/tokens"), (e) => code(e) === "secret_key_invalid");
    const other = new SecretBox(Buffer.alloc(32, 7));
    assert.throws(() => other.open(sealed, "gateway:a/tokens"), (e) => code(e) === "secret_key_invalid" && !/gho_secret/.test((e as Error).message));
  });
});

describe("Secrets in a SQLite store", () => {
  it("keeps tokens that a grep of the raw database file (and its WAL) does not find", async () => {
    const dir = makeTempDir("toolsearch-secrets-");
    const path = join(dir, "store.sqlite");
    const token = "at_Zq8vT3kLm2Pq9Xw7Rb4Nc6Yd1Fh5Gj0";
    const key = Buffer.from(HEX_KEY, "hex");
    let store = await openStore(path);
    await new Secrets(store, new SecretBox(key)).put("gateway:remote", "tokens", { access_token: token, refresh_token: `${token}-refresh` });
    const raw = () => ["", "-wal", "-shm"].map((suffix) => `${path}${suffix}`).filter(existsSync).map((file) => readFileSync(file).toString("latin1")).join("");
    assert.ok(raw().includes("gateway:remote"), "the row is in the file (the grep looks at the right bytes)");
    assert.ok(!raw().includes(token) && !raw().includes(Buffer.from(token).toString("base64").slice(0, 20)), "the token is not in the file while the store is open");
    await store.close();
    assert.ok(!raw().includes(token), "nor after a checkpoint on close");
    store = await openStore(path);
    try {
      assert.deepEqual(await new Secrets(store, new SecretBox(key)).get("gateway:remote", "tokens"), { access_token: token, refresh_token: `${token}-refresh` });
      await assert.rejects(new Secrets(store, new SecretBox(Buffer.alloc(32, 1))).get("gateway:remote", "tokens"), (e) => code(e) === "secret_key_invalid");
    } finally {
      await store.close();
    }
  });
});
