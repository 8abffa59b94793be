/**
 * The audit log (SPEC §16) on the service: `call_tool` on `/mcp/{c}` with the SDK client against a real upstream,
 * writes over REST, `GET /v1/audit` (admin, filtered, paged), `toolsearch audit --json` on the same store, and an
 * `AuditLog` whose store fails keeps its entries until it can write them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createApiKey } from "../../src/server/auth.js";
import type { AuditEntry } from "../../src/store/types.js";
import { AuditLog, parseSince } from "../../src/trust/audit.js";
import { runCli } from "../helpers/cli.js";
import { eventually, FIXTURE_SERVER, foundNames, textOf } from "../mcp/helpers.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/types.js";
import { makeService, tempDir, type TestService, weatherTools } from "./helpers.js";

describe("audit log", () => {
  let s: TestService;
  let base: string;
  let audit: AuditLog;
  let auditStore: Store;
  before(async () => {
    // The log writes through its own connection to the service's SQLite file, as a second process could.
    const dir = tempDir();
    auditStore = await openStore(join(dir, "store.sqlite"));
    audit = new AuditLog(auditStore, { keepArguments: true, flushMs: 20 });
    s = await makeService({ audit }, dir);
    base = await s.app.listen({ port: 0, host: "127.0.0.1" });
  });
  after(async () => {
    await audit?.close();
    await auditStore?.close();
    await s?.close();
  });

  const get = (query: string, key = s.keys.admin) => fetch(`${base}/v1/audit${query}`, { headers: s.auth(key) });

  it("records call_tool with who, tool, outcome, duration and argument size, and every write", async () => {
    const put = (url: string, body: unknown, method = "PUT") => fetch(`${base}${url}`, { method, headers: { ...s.auth(s.keys.admin), "content-type": "application/json" }, body: JSON.stringify(body) });
    assert.equal((await put("/v1/collections/fixture", { kind: "mcp", mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER] } } })).status, 201);
    assert.equal((await put("/v1/collections/weather", { kind: "tools", tools: weatherTools() })).status, 201);
    assert.equal((await put("/v1/collections/weather/tools/get_weather", { name: "get_weather", description: "Weather now.", input_schema: { type: "object" } }, "DELETE")).status, 204);
    assert.equal((await put("/v1/collections/weather/tools/nope", {}, "DELETE")).status, 404);
    const client = new Client({ name: "audit-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/fixture`), { requestInit: { headers: s.auth(s.keys.call) } }));
    try {
      await eventually(async () => foundNames(await client.callTool({ name: "search_tools", arguments: { query: "echo text" } })).includes("fx__echo_text"));
      assert.equal(textOf(await client.callTool({ name: "call_tool", arguments: { name: "fx__echo_text", arguments: { text: "hello" } } })), "hello");
      await client.callTool({ name: "call_tool", arguments: { name: "fx__echo_text", arguments: { wrong: 1 } } });
      await client.callTool({ name: "call_tool", arguments: { name: "fx__nope", arguments: {} } });
    } finally {
      await client.close();
    }
    const res = await get("?limit=50");
    assert.equal(res.status, 200);
    const entries = ((await res.json()) as { entries: Array<AuditEntry & { id: number }> }).entries;
    const calls = entries.filter((e) => e.action === "call_tool");
    assert.deepEqual(calls.map((e) => [e.target, e.outcome]), [["fx__nope", "refused"], ["fx__echo_text", "refused"], ["fx__echo_text", "ok"]]);
    const ok = calls[2];
    assert.equal(ok.who.length > 0 && ok.who !== "anonymous", true);
    assert.equal(ok.collection, "fixture");
    assert.equal(ok.argumentBytes, Buffer.byteLength(JSON.stringify({ text: "hello" })));
    assert.deepEqual(ok.arguments, { text: "hello" });
    assert.ok(ok.durationMs >= 0);
    const writes = entries.filter((e) => e.action !== "call_tool").map((e) => [e.action, e.collection, e.target ?? null, e.outcome]);
    assert.deepEqual(writes, [
      ["delete_item", "weather", "nope", "404"],
      ["delete_item", "weather", "get_weather", "ok"],
      ["put_collection", "weather", null, "ok"],
      ["put_collection", "fixture", null, "ok"],
    ]);
    // Only the key's id is recorded: never the key itself.
    assert.ok(!JSON.stringify(entries).includes(s.keys.call) && !JSON.stringify(entries).includes(s.keys.admin));
  });

  it("GET /v1/audit is for admins, filters by who, collection and time, and pages with next", async () => {
    assert.equal((await get("", s.keys.write)).status, 403);
    // An admin key limited to one collection would read every collection's calls: refused.
    const limited = (await createApiKey(s.store, { scope: "admin", collection: "weather" })).key;
    assert.equal((await get("", limited)).status, 403);
    const billing = (await createApiKey(s.store, { scope: "admin", toolsAllow: ["billing_*"] })).key;
    assert.equal((await get("", billing)).status, 403);
    const all = ((await (await get("")).json()) as { entries: AuditEntry[] }).entries;
    const who = all.find((e) => e.action === "call_tool")!.who;
    const mine = ((await (await get(`?who=${who}`)).json()) as { entries: AuditEntry[] }).entries;
    assert.ok(mine.length === 3 && mine.every((e) => e.who === who));
    const weather = ((await (await get("?collection=weather")).json()) as { entries: AuditEntry[] }).entries;
    assert.equal(weather.length, 3);
    assert.equal(((await (await get("?since=1h")).json()) as { entries: AuditEntry[] }).entries.length, all.length);
    assert.equal(((await (await get("?since=2999-01-01")).json()) as { entries: AuditEntry[] }).entries.length, 0);
    const bad = await get("?since=yesterday");
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { code: string } }).error.code, "invalid_option");
    const first = (await (await get("?limit=2")).json()) as { entries: Array<{ id: number }>; next: number };
    assert.equal(first.entries.length, 2);
    const second = (await (await get(`?limit=2&before=${first.next}`)).json()) as { entries: Array<{ id: number }> };
    assert.ok(second.entries.every((e) => e.id < first.next));
  });

  it("toolsearch audit --json shows who called which tool with what outcome", async () => {
    await audit.flush();
    const run = runCli(["audit", "--store", join(s.dir, "store.sqlite"), "--json", "--since", "1d"]);
    assert.equal(run.code, 0, run.stderr);
    const entries = (JSON.parse(run.stdout) as { entries: AuditEntry[] }).entries;
    assert.ok(entries.some((e) => e.action === "call_tool" && e.target === "fx__echo_text" && e.outcome === "ok" && e.who.length > 0));
    const text = runCli(["audit", "--store", join(s.dir, "store.sqlite"), "--collection", "weather"]);
    assert.match(text.stdout, /delete_item\s+weather\s+get_weather\s+ok/);
  });
});

describe("AuditLog", () => {
  it("keeps entries while the store fails and writes them, in order, once it answers", async () => {
    const written: AuditEntry[] = [];
    let failing = true;
    const lines: string[] = [];
    const log = new AuditLog({ appendAudit: async (entries) => {
      if (failing) throw new Error("store away");
      written.push(...entries);
    } }, { flushMs: 5, log: (l) => lines.push(l) });
    for (let i = 0; i < 5; i++) log.record({ who: "k", action: "call_tool", collection: "c", target: `t${i}`, outcome: "ok", durationMs: 1, arguments: { secret: i } });
    await assert.rejects(log.flush(), /store away/);
    assert.equal(log.pending, 5);
    assert.match(lines[0], /kept and retried/);
    failing = false;
    await log.flush();
    assert.deepEqual(written.map((e) => e.target), ["t0", "t1", "t2", "t3", "t4"]);
    assert.ok(written.every((e) => !("arguments" in e)), "arguments only with keepArguments");
  });

  it("reads --since as a time or an age", () => {
    assert.equal(parseSince("2026-01-31"), "2026-01-31T00:00:00.000Z");
    assert.equal(parseSince("2h", Date.parse("2026-01-31T12:00:00Z")), "2026-01-31T10:00:00.000Z");
    assert.throws(() => parseSince("soon"), { code: "invalid_option" });
  });
});
