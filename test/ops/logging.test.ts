/**
 * What a real `toolsearch serve --log json` writes (src/ops/logging.ts): every line on stdout is one JSON object
 * (request lines with their request id, notes, the "listening" line, an upstream's stderr tagged with its server),
 * nothing on stderr, and no secret anywhere: not the API key, not a wrong Bearer token, not an upstream's env
 * secret, not a postgres:// password. Also how `--log` and `--log-level` are read.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Writable } from "node:stream";
import { logSettings, ProcessLog } from "../../src/ops/logging.js";
import { assertNoSecretHeaders, logHeadersOnEveryRequest, SECRET_HEADER_VALUES, sendSecretHeaders } from "../helpers/header-secrets.js";
import { MAIN, makeService, startServe, tempDir, waitReady } from "../server/helpers.js";

const API_TOKEN = "leaky-upstream-secret-7f3a";
const WRONG_TOKEN = "not-a-key-b7e2c9d4";
const PG_PASSWORD = "PgSecret-4242";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function home(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}

/** Every non-empty line of `text`, each parsed as a JSON object (fails naming the first line that is not one). */
function jsonLines(text: string): Array<Record<string, unknown>> {
  return text.split("\n").filter((line) => line.trim()).map((line) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      assert.fail(`not a JSON line: ${line}`);
    }
    assert.ok(value && typeof value === "object" && !Array.isArray(value), `not a JSON object: ${line}`);
    return value as Record<string, unknown>;
  });
}

describe("serve --log json", () => {
  it("writes only JSON lines on stdout, with request ids and upstream stderr, and never a secret", async () => {
    const TOOLSEARCH_HOME = home();
    const created = spawnSync(process.execPath, ["--import", "tsx", MAIN, "keys", "create", "--scope", "admin", "--json"], { encoding: "utf8", env: { ...process.env, TOOLSEARCH_HOME } });
    const key = (JSON.parse(created.stdout) as { key: string }).key;
    // An upstream that prints its secret on stderr and is not an MCP server: it fails, and says so, masked.
    const leaky = join(TOOLSEARCH_HOME, "leaky.mjs");
    writeFileSync(leaky, 'process.stderr.write(`my token is ${process.env.API_TOKEN}\\n`); setTimeout(() => {}, 100);\n');
    writeFileSync(join(TOOLSEARCH_HOME, "leaky.json"), JSON.stringify({ mcpServers: { leaky: { command: process.execPath, args: [leaky], env: { API_TOKEN: "${LEAKY_TOKEN}" } } } }));
    const p = await startServe(["--log", "json", "--log-level", "info", "--drain-seconds", "0", "--mcp-config", join(TOOLSEARCH_HOME, "leaky.json")], { TOOLSEARCH_HOME, LEAKY_TOKEN: API_TOKEN });
    await waitReady(p.url);
    const auth = { authorization: `Bearer ${key}` };
    assert.equal((await fetch(`${p.url}/v1/collections`, { headers: auth })).status, 200);
    assert.equal((await fetch(`${p.url}/v1/collections`, { headers: { authorization: `Bearer ${WRONG_TOKEN}` } })).status, 401);
    const put = await fetch(`${p.url}/v1/collections/crm`, {
      method: "PUT",
      headers: { ...auth, "content-type": "application/json", "x-request-id": "trace-me-1" },
      body: JSON.stringify({ kind: "tools", tools: [{ name: "get_customer", description: "Get a customer.", input_schema: { type: "object" } }] }),
    });
    assert.equal(put.status, 201);
    assert.equal(put.headers.get("x-request-id"), "trace-me-1");
    const audit = (await (await fetch(`${p.url}/v1/audit`, { headers: auth })).json()) as { entries: Array<{ action: string; requestId?: string }> };
    assert.equal(audit.entries.find((e) => e.action === "put_collection")?.requestId, "trace-me-1");
    // The upstream's failure, with its stderr, is logged before the restart delay ends.
    for (let i = 0; i < 100 && !/my token is/.test(p.stderr()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    p.child.kill("SIGTERM");
    assert.equal(await p.exited, 0);

    const all = p.stderr();
    for (const secret of [key, WRONG_TOKEN, API_TOKEN]) assert.ok(!all.includes(secret), `a secret reached the log: ${secret}`);
    const stdout = all.slice(all.indexOf("{"));
    assert.equal(all.indexOf("{"), 0, `stderr must stay empty, got: ${all.slice(0, 300)}`);
    const lines = jsonLines(stdout);
    assert.ok(lines.some((l) => typeof l.url === "string" && /^listening on http/.test(String(l.msg))));
    assert.ok(lines.some((l) => l.requestId === "trace-me-1" && l.status === 201), "the request's log line carries its id");
    const upstream = lines.find((l) => l.server === "leaky" && l.source === "upstream-stderr");
    assert.ok(upstream, "the upstream's stderr is logged, tagged with its server");
    assert.equal(upstream.msg, "my token is ***");
    assert.ok(lines.some((l) => /stopped/.test(String(l.msg))));
  });

  it("never shows a postgres:// password, even when the store cannot be reached", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", MAIN, "serve", "--log", "json", "--port", "0", "--store", `postgres://toolsearch:${PG_PASSWORD}@127.0.0.1:1/none`], {
      encoding: "utf8",
      env: { ...process.env, TOOLSEARCH_HOME: home() },
    });
    assert.notEqual(result.status, 0);
    assert.ok(!`${result.stdout}${result.stderr}`.includes(PG_PASSWORD));
    assert.equal(result.stderr, "");
    const lines = jsonLines(result.stdout);
    assert.ok(lines.some((l) => /127\.0\.0\.1:1/.test(String(l.msg))), result.stdout);
  });
});

describe("ProcessLog redaction", () => {
  it("redacts every credential-bearing header in the notes and in fastify's request logger", async () => {
    const lines: string[] = [];
    const destination = Object.assign(new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }), { flushSync: () => {} });
    const log = new ProcessLog({ format: "json", level: "info" }, "serve", destination);
    log.note("a note that carries headers", { headers: SECRET_HEADER_VALUES });
    const s = await makeService({ logger: log.fastifyLogger() as Record<string, unknown> });
    try {
      logHeadersOnEveryRequest(s.app);
      await sendSecretHeaders(s.app);
    } finally {
      await s.close();
    }
    assertNoSecretHeaders(lines.join(""));
    assert.ok(lines.some((line) => line.includes("a note that carries headers")));
    assert.ok(lines.some((line) => line.includes("request headers")));
  });
});

describe("logSettings", () => {
  it("defaults to JSON off a terminal and to text on one", () => {
    assert.deepEqual(logSettings(undefined, undefined, false), { format: "json", level: "info" });
    assert.deepEqual(logSettings(undefined, undefined, true), { format: "text", level: "info" });
    assert.deepEqual(logSettings("text", "debug", false), { format: "text", level: "debug" });
  });

  it("still takes a level as --log (as before), and refuses anything else naming the flag", () => {
    assert.deepEqual(logSettings("warn", undefined, false), { format: "json", level: "warn" });
    assert.throws(() => logSettings("yaml", undefined), /--log takes json or text/);
    assert.throws(() => logSettings("json", "loud"), /--log-level takes trace/);
  });
});

