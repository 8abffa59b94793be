/**
 * One setting from the environment with the *_FILE secrets convention (src/ops/environment.ts), and the secrets the
 * code reads itself through it: TOOLSEARCH_SECRET_KEY_FILE opens what TOOLSEARCH_SECRET_KEY sealed.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { loadSecretKey } from "../../src/auth/secrets.js";
import { readSetting, secretFromEnv } from "../../src/ops/environment.js";
import { makeTempDir } from "../helpers/temp-dir.js";

test("readSetting: the first name set wins; empty is unset; *_FILE only for secrets, its trailing newline dropped", () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, "token"), "t0ken-value\n");
  writeFileSync(join(dir, "two-lines"), "line one\nline two\n\n");
  assert.deepEqual(readSetting(["A", "B"], { env: { A: "", B: "b" } }), { name: "B", value: "b" });
  assert.deepEqual(readSetting(["A", "B"], { env: { A: "a", B: "b" } }), { name: "A", value: "a" });
  assert.equal(readSetting(["A"], { env: { A_FILE: join(dir, "token") } }), undefined, "not a secret: no file");
  assert.deepEqual(readSetting(["A"], { secret: true, env: { A_FILE: join(dir, "token") } }), { name: "A_FILE", value: "t0ken-value" });
  assert.equal(secretFromEnv("A", { A_FILE: join(dir, "two-lines") }), "line one\nline two\n", "only one trailing newline is dropped");
  assert.equal(secretFromEnv("A", {}), undefined);
});

test("a secret file that cannot be read, is empty, or is set beside its variable is refused without showing the value", () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, "empty"), "");
  writeFileSync(join(dir, "secret"), "hunter2\n");
  assert.throws(() => secretFromEnv("TOOLSEARCH_MCP_TOKEN", { TOOLSEARCH_MCP_TOKEN_FILE: join(dir, "gone") }), {
    name: "ToolsearchError",
    code: "invalid_option",
    message: `TOOLSEARCH_MCP_TOKEN_FILE names ${join(dir, "gone")}, which cannot be read (ENOENT)`,
  });
  assert.throws(() => secretFromEnv("X", { X_FILE: join(dir, "empty") }), /X_FILE names .*empty, which is empty/);
  assert.throws(
    () => secretFromEnv("X", { X: "hunter2", X_FILE: join(dir, "secret") }),
    (error: Error) => /both X and X_FILE are set/.test(error.message) && !error.message.includes("hunter2"),
  );
});

test("TOOLSEARCH_SECRET_KEY_FILE gives the same key as TOOLSEARCH_SECRET_KEY; a bad one names the file, not its text", () => {
  const dir = makeTempDir();
  const key = randomBytes(32);
  writeFileSync(join(dir, "key"), `${key.toString("base64")}\n`);
  writeFileSync(join(dir, "bad"), "not-a-key\n");
  const keyFile = join(dir, "never-made.key");
  assert.deepEqual(loadSecretKey({ env: { TOOLSEARCH_SECRET_KEY_FILE: join(dir, "key") }, keyFile }), key);
  assert.deepEqual(loadSecretKey({ env: { TOOLSEARCH_SECRET_KEY: key.toString("hex") }, keyFile }), key);
  assert.throws(() => loadSecretKey({ env: { TOOLSEARCH_SECRET_KEY_FILE: join(dir, "bad") }, keyFile }), (error: Error) => {
    assert.match(error.message, /the file TOOLSEARCH_SECRET_KEY_FILE names must hold 32 bytes/);
    assert.doesNotMatch(error.message, /not-a-key/);
    return true;
  });
});
