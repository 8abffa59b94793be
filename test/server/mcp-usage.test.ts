/**
 * Usage events from MCP sessions (SPEC §17): the service's `/mcp/{c}` gateway over real Streamable HTTP with the SDK
 * client, and the standalone `toolsearch mcp` over stdio. Searches, loads and calls reach the store with the session's
 * id and never an argument value; the learned signal then ranks the collection's searches and shows in `explain`, with
 * the same off switches as the service's REST searches.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { GATEWAY_USAGE } from "../../src/mcp/usage.js";
import { openStore } from "../../src/store/open.js";
import type { UsageEvent } from "../../src/store/types.js";
import { CLI, FIXTURE_SERVER, eventually, foundNames, textOf } from "../mcp/helpers.js";
import { makeService, tempDir, type TestService } from "./helpers.js";

const SECRET = "sk-live-do-not-keep-4711";
const QUERY = "is everything healthy";

/** One agent's session: searches for a health check and calls what it needs, `rounds` times, plus one echo with a secret. */
async function work(client: Client, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await client.callTool({ name: "search_tools", arguments: { query: QUERY } });
    assert.equal(textOf(await client.callTool({ name: "call_tool", arguments: { name: "fx__ping", arguments: {} } })), "pong");
  }
  await client.callTool({ name: "search_tools", arguments: { query: "echo text back" } });
  await client.callTool({ name: "describe_tool", arguments: { name: "fx__echo_text" } });
  assert.equal(textOf(await client.callTool({ name: "call_tool", arguments: { name: "fx__echo_text", arguments: { text: SECRET } } })), SECRET);
  await client.callTool({ name: "call_tool", arguments: { name: "fx__echo_text", arguments: { wrong: SECRET } } }); // refused: not recorded
}

/** What a session's events must look like after `work`. */
function checkEvents(events: UsageEvent[], collection: string, rounds: number): void {
  assert.equal(events.filter((e) => e.kind === "search" && e.query === QUERY).length, rounds);
  assert.equal(events.filter((e) => e.kind === "call" && e.tools[0] === "fx__ping" && e.outcome === "ok").length, rounds);
  assert.deepEqual(events.filter((e) => e.kind === "load").map((e) => e.tools), [["fx__echo_text"]]);
  assert.equal(events.filter((e) => e.kind === "call" && e.tools[0] === "fx__echo_text").length, 1, "the refused call is not an event");
  assert.ok(events.every((e) => e.collection === collection));
  assert.equal(new Set(events.map((e) => e.session)).size, 1, "one session, one id");
  assert.match(events[0].session, /^[0-9a-f-]{36}$/);
  assert.ok(!JSON.stringify(events).includes(SECRET), "argument values are never recorded");
}

describe("usage events from the service's /mcp/{c} gateway", () => {
  let s: TestService;
  let base: string;
  let client: Client;

  before(async () => {
    s = await makeService();
    base = await s.app.listen({ port: 0, host: "127.0.0.1" });
    const put = await fetch(`${base}/v1/collections/fixture`, {
      method: "PUT", headers: { ...s.auth(s.keys.admin), "content-type": "application/json" },
      body: JSON.stringify({ kind: "mcp", mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER] } } }),
    });
    assert.equal(put.status, 201);
    client = new Client({ name: "usage-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/fixture`), { requestInit: { headers: s.auth(s.keys.call) } }));
    await eventually(async () => foundNames(await client.callTool({ name: "search_tools", arguments: { query: "pong alive" } })).includes("fx__ping"));
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await s.close();
  });

  const rest = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: { ...s.auth(s.keys.admin), "content-type": "application/json" }, body: JSON.stringify(body) });
    return (await res.json()) as Record<string, any>;
  };
  const explain = () => rest("POST", "/v1/collections/fixture/explain", { query: QUERY, name: "fx__ping" });

  test("searches, loads and calls are in the store; the learned part ranks and explains; the switches turn it off", async () => {
    assert.equal((await explain()).learned, undefined, "nothing learned yet");
    await work(client, 32);
    await eventually(async () => (await s.store.listUsage("fixture")).some((e) => e.kind === "call" && e.tools[0] === "fx__echo_text"));
    const events = (await s.store.listUsage("fixture")).filter((e) => e.query !== "pong alive");
    checkEvents(events, "fixture", 32);

    const why = await explain();
    assert.ok(why.learned.contribution > 0, JSON.stringify(why));
    assert.ok(why.learned.terms.some((t: { term: string }) => t.term === "healthi" || t.term === "healthy"), JSON.stringify(why.learned.terms));
    assert.equal(foundNames(await client.callTool({ name: "search_tools", arguments: { query: QUERY } }))[0], "fx__ping", "the gateway's own search uses it");
    const top = async (body: Record<string, unknown>) => (await rest("POST", "/v1/collections/fixture/search", { query: QUERY, ...body })).results.map((r: { name: string }) => r.name);
    assert.equal((await top({}))[0], "fx__ping");
    assert.ok(!(await top({ learned: false })).includes("fx__ping"), "per request: off");

    await rest("PUT", "/v1/collections/fixture/learning", { enabled: false });
    await eventually(async () => (await explain()).learned === undefined);
    assert.ok(!foundNames(await client.callTool({ name: "search_tools", arguments: { query: QUERY } })).includes("fx__ping"), "per collection: off in the gateway too");
  });
});

describe("usage events from toolsearch mcp over stdio", () => {
  test("go to the gateway's store under :gateway, and teach the next run's searches", async () => {
    const dir = tempDir();
    const config = join(dir, "mcp.json");
    const storePath = join(dir, "store.sqlite");
    writeFileSync(config, JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER] } } }));
    const run = async (body: (client: Client) => Promise<void>, extra: string[] = []) => {
      const client = new Client({ name: "stdio-usage-test", version: "1.0.0" });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: ["--import", "tsx", CLI, "mcp", "--config", config, "--store", storePath, "--eager", ...extra], stderr: "ignore" }));
      try {
        await body(client);
      } finally {
        await client.close();
      }
    };
    await run((client) => work(client, 31));
    const store = await openStore(storePath);
    try {
      await eventually(async () => (await store.listUsage(GATEWAY_USAGE)).length >= 65);
      checkEvents(await store.listUsage(GATEWAY_USAGE), GATEWAY_USAGE, 31);
    } finally {
      await store.close();
    }
    assert.ok(!readFileSync(storePath).includes(SECRET), "not in the store file either");
    await run(async (client) => {
      assert.equal(foundNames(await client.callTool({ name: "search_tools", arguments: { query: QUERY } }))[0], "fx__ping", "learned from the stored events at start");
    });
    await run(async (client) => {
      assert.ok(!foundNames(await client.callTool({ name: "search_tools", arguments: { query: QUERY } })).includes("fx__ping"));
    }, ["--no-learning"]);
    rmSync(dir, { recursive: true, force: true });
  });
});
