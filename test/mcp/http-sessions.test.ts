/**
 * HTTP sessions: idle ones are closed, at most `maxSessions` are open (one more gets HTTP 503 with a JSON-RPC error
 * saying why, after idle ones were closed), and what `exposeFound` adds belongs to the session that searched. The
 * table's rules with a test clock; the transport over real HTTP on loopback with the SDK's own client.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parseGatewayConfig } from "../../src/mcp/config.js";
import { Gateway } from "../../src/mcp/gateway.js";
import { SessionTable } from "../../src/mcp/http-sessions.js";
import { type HttpEndpoint, serveHttp } from "../../src/mcp/transports.js";
import { eventually, FIXTURE_SERVER, textOf } from "./helpers.js";

describe("session table", () => {
  let now = 0;
  const closed: string[] = [];
  const table = new SessionTable<string>({ idleMs: 1000, max: 2, now: () => now, close: async (s) => void closed.push(s) });
  after(() => table.closeAll());

  it("closes sessions idle for longer than idleMs, and forgets them on touch", async () => {
    table.add("a", "A");
    now = 600;
    table.add("b", "B");
    assert.equal(table.touch("a"), "A"); // used at 600
    now = 1500;
    assert.equal(await table.closeIdle(), 0);
    now = 1700;
    assert.equal(table.touch("b"), undefined, "b was idle for 1100 ms");
    assert.deepEqual(closed, ["B"]);
    assert.equal(table.size, 1);
  });

  it("refuses a session past the cap only when no idle one can be closed, saying when a place frees", async () => {
    now = 1700;
    assert.equal(await table.closeIdle(), 1, "a, last used at 600, is idle too");
    table.add("c", "C");
    table.add("d", "D"); // both new at 1700: full
    now = 1800;
    const refusal = await table.refusal();
    assert.ok(refusal);
    assert.match(refusal.message, /Too many open MCP sessions: 2 of at most 2 \(--max-sessions\)/);
    assert.match(refusal.message, /Sessions idle for 1 s are closed; the next place frees in about 1 s/);
    now = 2700; // idle for exactly idleMs: not yet expired
    assert.ok(await table.refusal());
    now = 2701;
    assert.equal(await table.refusal(), undefined, "the idle sessions were closed to make room");
    assert.deepEqual(closed, ["B", "A", "C", "D"]);
  });
});

describe("gateway sessions over HTTP", () => {
  let gateway: Gateway;
  let endpoint: HttpEndpoint;
  const clients: Client[] = [];

  const connect = async () => {
    const client = new Client({ name: "sessions-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
    clients.push(client);
    return client;
  };
  const initialize = () => fetch(endpoint.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }),
  });

  before(async () => {
    const config = parseGatewayConfig({ mcpServers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER] } } });
    gateway = await Gateway.start({ config, exposeFound: true, log: () => undefined });
    endpoint = await serveHttp(gateway, { port: 0, maxSessions: 2, sessionIdleMs: 1500 });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await endpoint.close();
    await gateway.close();
  });

  it("a POST that does not initialize is refused and leaves no session behind", async () => {
    const response = await fetch(endpoint.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    assert.equal(response.status, 400);
    assert.equal(gateway.sessionCount, 0);
  });

  it("exposes found tools only to the session that searched", async () => {
    const [searcher, other] = [await connect(), await connect()];
    await searcher.callTool({ name: "search_tools", arguments: { query: "echo text", limit: 1 } });
    const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
    assert.ok((await names(searcher)).includes("fixture__echo_text"));
    assert.deepEqual(await names(other), ["search_tools", "describe_tool", "call_tool"]);
    assert.equal(textOf(await searcher.callTool({ name: "fixture__echo_text", arguments: { text: "mine" } })), "mine");
    assert.match(textOf(await other.callTool({ name: "fixture__echo_text", arguments: { text: "x" } })), /Unknown tool "fixture__echo_text"/);
  });

  it("refuses one session too many with HTTP 503 and a JSON-RPC error that says why", async () => {
    const response = await initialize();
    assert.equal(response.status, 503);
    assert.ok(Number(response.headers.get("retry-after")) >= 1);
    const body = (await response.json()) as { jsonrpc: string; error: { code: number; message: string } };
    assert.equal(body.jsonrpc, "2.0");
    assert.match(body.error.message, /Too many open MCP sessions: 2 of at most 2/);
    assert.equal(gateway.sessionCount, 2);
  });

  it("closes idle sessions, which frees their places; their ids are then unknown", async () => {
    await eventually(async () => (await initialize()).status === 200, 50, 200);
    assert.ok(gateway.sessionCount <= 2);
    const stale = await clients[0].listTools().then(() => "answered", (error: Error) => error.message);
    assert.match(stale, /Unknown or expired MCP session/);
  });
});
