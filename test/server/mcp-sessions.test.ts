/**
 * Sessions of `/mcp/{c}` over real HTTP with the official MCP SDK client: the cap (503 with a JSON-RPC error saying
 * why), idle expiry, a revoked key ending its session, sessions that outlive a replace of their collection and see
 * its new tools, a deleted collection ending them with a clear error, and exposure that belongs to one session.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createApiKey } from "../../src/server/auth.js";
import { FIXTURE_SERVER, eventually, foundNames, textOf } from "../mcp/helpers.js";
import { helpCenter, makeService, type TestService, weatherTools } from "./helpers.js";

const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

interface Harness {
  s: TestService;
  base: string;
  connect(collection: string, key: string): Promise<Client>;
  put(collection: string, key: string, body: unknown): Promise<Response>;
  /** A raw JSON-RPC request on an existing session. */
  raw(collection: string, key: string, sessionId: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

async function harness(options: Parameters<typeof makeService>[0] = {}): Promise<Harness> {
  const s = await makeService(options);
  const base = await s.app.listen({ port: 0, host: "127.0.0.1" });
  const clients: Client[] = [];
  return {
    s,
    base,
    async connect(collection, key) {
      const client = new Client({ name: "sessions-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/${collection}`), { requestInit: { headers: s.auth(key) } }));
      clients.push(client);
      return client;
    },
    put: (collection, key, body) =>
      fetch(`${base}/v1/collections/${collection}`, { method: "PUT", headers: { ...s.auth(key), "content-type": "application/json" }, body: JSON.stringify(body) }),
    raw: (collection, key, sessionId, body = { jsonrpc: "2.0", id: 7, method: "tools/list" }) =>
      fetch(`${base}/mcp/${collection}`, {
        method: "POST",
        headers: { ...s.auth(key), ...MCP_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
        body: JSON.stringify(body),
      }),
    async close() {
      for (const client of clients) await client.close().catch(() => undefined);
      await s.close();
    },
  };
}

/** Matches the SDK's error for an HTTP answer of this status. */
const httpStatus = (status: number) => (error: unknown) => (error as { code?: number }).code === status;
const sessionOf = (client: Client) => (client.transport as StreamableHTTPClientTransport).sessionId!;
const search = async (client: Client, query: string) => foundNames(await client.callTool({ name: "search_tools", arguments: { query } }));

describe("/mcp/{c} session limits", () => {
  let h: Harness;
  before(async () => {
    h = await harness({ mcp: { maxSessions: 2, sessionIdleMs: 60_000 } });
    assert.equal((await h.put("weather", h.s.keys.write, { kind: "tools", tools: weatherTools() })).status, 201);
  });
  after(() => h.close());

  test("one session over --max-sessions gets 503, Retry-After and a JSON-RPC error saying why; a closed one frees its place", async () => {
    const first = await h.connect("weather", h.s.keys.read);
    await h.connect("weather", h.s.keys.read);
    const refused = await fetch(`${h.base}/mcp/weather`, { method: "POST", headers: { ...h.s.auth(h.s.keys.read), ...MCP_HEADERS }, body: JSON.stringify(INITIALIZE) });
    assert.equal(refused.status, 503);
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    const body = (await refused.json()) as { jsonrpc: string; error: { code: number; message: string; data: { code: string } } };
    assert.equal(body.jsonrpc, "2.0");
    assert.equal(body.error.data.code, "not_ready");
    assert.match(body.error.message, /Too many open MCP sessions: 2 of at most 2 \(--max-sessions\)\. Close sessions you no longer use \(HTTP DELETE \/mcp\/\{c\} with/);
    await assert.rejects(h.connect("weather", h.s.keys.read), httpStatus(503));

    const metrics = await (await fetch(`${h.base}/metrics`, { headers: h.s.auth(h.s.keys.admin) })).text();
    assert.match(metrics, /^toolsearch_mcp_sessions\{collection="weather"\} 2$/m);

    await (first.transport as StreamableHTTPClientTransport).terminateSession();
    // A request that does not initialize is refused and leaves nothing behind.
    const gateway = await h.s.collections.gatewayFor("weather");
    assert.equal(gateway.sessionCount, 1);
    const notInitialize = await fetch(`${h.base}/mcp/weather`, { method: "POST", headers: { ...h.s.auth(h.s.keys.read), ...MCP_HEADERS }, body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }) });
    assert.equal(notInitialize.status, 400);
    assert.equal(gateway.sessionCount, 1);
    const third = await h.connect("weather", h.s.keys.read);
    assert.equal((await search(third, "currency conversion"))[0], "convert_currency");
  });
});

describe("/mcp/{c} session lifetime", () => {
  let h: Harness;
  before(async () => {
    h = await harness({ mcp: { sessionIdleMs: 400 } });
    assert.equal((await h.put("weather", h.s.keys.write, { kind: "tools", tools: weatherTools() })).status, 201);
  });
  after(() => h.close());

  test("a session idle for longer than --session-idle is closed, and its next request is told so", async () => {
    const client = await h.connect("weather", h.s.keys.read);
    const id = sessionOf(client);
    const gateway = await h.s.collections.gatewayFor("weather");
    assert.equal(gateway.sessionCount, 1);
    await eventually(() => gateway.sessionCount === 0, 100, 50);
    const answer = await h.raw("weather", h.s.keys.read, id);
    assert.equal(answer.status, 404);
    assert.match(((await answer.json()) as { error: { message: string } }).error.message, /ended: it was idle for more than 0 s \(--session-idle\)/);
  });
});

describe("/mcp/{c} sessions across changes of their collection and key", () => {
  let h: Harness;
  before(async () => {
    h = await harness({ mcp: { sessionIdleMs: 60_000 } });
    assert.equal((await h.put("weather", h.s.keys.write, { kind: "tools", tools: weatherTools() })).status, 201);
    assert.equal((await h.put("kb", h.s.keys.write, { kind: "docs", documents: helpCenter() })).status, 201);
  });
  after(() => h.close());

  test("a revoked key's session stops working and is closed", async () => {
    const { id, key } = await createApiKey(h.s.store, { scope: "call" });
    const client = await h.connect("weather", key);
    const sessionId = sessionOf(client);
    const gateway = await h.s.collections.gatewayFor("weather");
    const open = gateway.sessionCount;
    assert.ok(open >= 1);
    await h.s.store.revokeKey(id);
    await assert.rejects(search(client, "weather"), httpStatus(401));
    // Closed right after the 401 is answered.
    await eventually(() => gateway.sessionCount === open - 1, 50, 20);
    // Even a valid key of the same scope cannot pick it up, and is told why it ended.
    const other = await h.raw("weather", h.s.keys.call, sessionId);
    assert.equal(other.status, 404);
    assert.match(((await other.json()) as { error: { message: string } }).error.message, /ended: the API key that opened it was revoked/);
  });

  test("replacing a tools collection keeps its open sessions, which see the new tools", async () => {
    const client = await h.connect("weather", h.s.keys.read);
    const sessionId = sessionOf(client);
    assert.equal((await search(client, "currency conversion"))[0], "convert_currency");
    const replacement = [{ name: "tide_table", description: "High and low tide times for a harbour.", input_schema: { type: "object", properties: {} } }];
    assert.equal((await h.put("weather", h.s.keys.write, { kind: "tools", tools: replacement })).status, 200);
    assert.equal(sessionOf(client), sessionId);
    assert.deepEqual(await search(client, "tide harbour"), ["tide_table"]);
    assert.deepEqual(await search(client, "currency conversion"), [], "the old tools are gone from the session");
    const described = JSON.parse(textOf(await client.callTool({ name: "describe_tool", arguments: { name: "tide_table" } }))) as { name: string };
    assert.equal(described.name, "tide_table");
  });

  test("replacing a docs collection keeps its sessions too", async () => {
    const client = await h.connect("kb", h.s.keys.read);
    assert.match(textOf(await client.callTool({ name: "search_docs", arguments: { query: "refund" } })), /kb-refunds/);
    const documents = [{ id: "kb-lighthouse", title: "Lighthouse opening hours", body: "The lighthouse opens at dawn and closes at dusk." }];
    assert.equal((await h.put("kb", h.s.keys.write, { kind: "docs", documents })).status, 200);
    assert.match(textOf(await client.callTool({ name: "search_docs", arguments: { query: "lighthouse hours" } })), /kb-lighthouse/);
    assert.doesNotMatch(textOf(await client.callTool({ name: "search_docs", arguments: { query: "refund" } })), /kb-refunds/);
  });

  test("deleting the collection ends its sessions with an error that says so", async () => {
    const client = await h.connect("kb", h.s.keys.read);
    const sessionId = sessionOf(client);
    const gateway = await h.s.collections.gatewayFor("kb");
    assert.ok(gateway.sessionCount >= 1);
    const deleted = await fetch(`${h.base}/v1/collections/kb`, { method: "DELETE", headers: h.s.auth(h.s.keys.write) });
    assert.equal(deleted.status, 204);
    assert.equal(gateway.sessionCount, 0);
    await assert.rejects(client.callTool({ name: "search_docs", arguments: { query: "refund" } }), httpStatus(404));
    const answer = await h.raw("kb", h.s.keys.read, sessionId);
    assert.equal(answer.status, 404);
    const body = (await answer.json()) as { error: { message: string; data: { code: string } } };
    assert.equal(body.error.data.code, "unknown_collection");
    assert.match(body.error.message, /This MCP session has ended: collection "kb" was deleted/);
  });
});

describe("/mcp/{c} with --expose-found", () => {
  let h: Harness;
  const config = { kind: "mcp", mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER] } } };
  before(async () => {
    h = await harness({ collectionOptions: { exposeFound: true } });
    assert.equal((await h.put("fixture", h.s.keys.admin, config)).status, 201);
  });
  after(() => h.close());

  test("found tools join only the searching session's list, and stay there across a replace", async () => {
    const searcher = await h.connect("fixture", h.s.keys.call);
    const bystander = await h.connect("fixture", h.s.keys.call);
    await eventually(async () => (await search(searcher, "echo the given text")).includes("fx__echo_text"));
    const listed = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
    assert.ok((await listed(searcher)).includes("fx__echo_text"));
    assert.ok(!(await listed(bystander)).includes("fx__echo_text"));
    assert.equal(textOf(await searcher.callTool({ name: "fx__echo_text", arguments: { text: "direct" } })), "direct");

    // The same servers again: the new gateway knows their tools from the stored manifest, so the exposure survives.
    assert.equal((await h.put("fixture", h.s.keys.admin, config)).status, 200);
    assert.ok((await listed(searcher)).includes("fx__echo_text"));
    assert.equal(textOf(await searcher.callTool({ name: "fx__echo_text", arguments: { text: "after replace" } })), "after replace");
    assert.ok(!(await listed(bystander)).includes("fx__echo_text"));
  });
});
