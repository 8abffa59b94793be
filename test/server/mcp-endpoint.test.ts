/**
 * `/mcp/{c}` over real HTTP with the official MCP SDK client: a tool collection, a document collection, and an `mcp`
 * collection whose upstream (the project's fixture server, over stdio) the gateway runs. Scopes hold inside MCP.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { FIXTURE_SERVER, eventually, foundNames, textOf } from "../mcp/helpers.js";
import { helpCenter, makeService, type TestService, weatherTools } from "./helpers.js";

describe("/mcp/{c} with the SDK client", () => {
  let s: TestService;
  let base: string;
  const clients: Client[] = [];

  before(async () => {
    s = await makeService();
    base = await s.app.listen({ port: 0, host: "127.0.0.1" });
    const put = (name: string, key: string, body: unknown) =>
      fetch(`${base}/v1/collections/${name}`, { method: "PUT", headers: { ...s.auth(key), "content-type": "application/json" }, body: JSON.stringify(body) });
    assert.equal((await put("weather", s.keys.write, { kind: "tools", tools: weatherTools() })).status, 201);
    assert.equal((await put("kb", s.keys.write, { kind: "docs", documents: helpCenter() })).status, 201);
    assert.equal((await put("fixture", s.keys.admin, { kind: "mcp", mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER] } } })).status, 201);
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await s.close();
  });

  async function connect(collection: string, key: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/${collection}`), { requestInit: { headers: s.auth(key) } });
    const client = new Client({ name: "service-test", version: "1.0.0" });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  test("a tool collection: search_tools finds its tools, describe_tool gives the schema", async () => {
    const client = await connect("weather", s.keys.read);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("search_tools") && names.includes("describe_tool"));
    const found = foundNames(await client.callTool({ name: "search_tools", arguments: { query: "currency conversion" } }));
    assert.equal(found[0], "convert_currency");
    const described = JSON.parse(textOf(await client.callTool({ name: "describe_tool", arguments: { name: "convert_currency" } }))) as { name: string };
    assert.equal(described.name, "convert_currency");
  });

  test("a write through REST is searchable in an open MCP session", async () => {
    const client = await connect("weather", s.keys.read);
    const tool = { name: "aurora_alert", description: "Northern lights alert for a region.", input_schema: { type: "object", properties: {} } };
    const put = await fetch(`${base}/v1/collections/weather/tools/aurora_alert`, { method: "PUT", headers: { ...s.auth(s.keys.write), "content-type": "application/json" }, body: JSON.stringify(tool) });
    assert.equal(put.status, 201);
    assert.equal(foundNames(await client.callTool({ name: "search_tools", arguments: { query: "northern lights" } }))[0], "aurora_alert");
  });

  test("a document collection offers search_docs and read_doc", async () => {
    const client = await connect("kb", s.keys.read);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("search_docs") && names.includes("read_doc"));
    const text = textOf(await client.callTool({ name: "search_docs", arguments: { query: "refund" } }));
    assert.match(text, /kb-refunds/);
  });

  test("an mcp collection: upstream tools are searchable and callable with the call scope, not with read", async () => {
    const caller = await connect("fixture", s.keys.call);
    await eventually(async () => foundNames(await caller.callTool({ name: "search_tools", arguments: { query: "pong alive" } })).includes("fx__ping"));
    const result = await caller.callTool({ name: "call_tool", arguments: { name: "fx__ping", arguments: {} } });
    assert.equal(textOf(result), "pong");

    const reader = await connect("fixture", s.keys.read);
    assert.ok(foundNames(await reader.callTool({ name: "search_tools", arguments: { query: "echo text" } })).includes("fx__echo_text"));
    await assert.rejects(reader.callTool({ name: "call_tool", arguments: { name: "fx__ping", arguments: {} } }), /403|forbidden|call scope/i);

    const rest = await fetch(`${base}/v1/collections/fixture/search`, { method: "POST", headers: { ...s.auth(s.keys.read), "content-type": "application/json" }, body: JSON.stringify({ query: "echo" }) });
    assert.equal(((await rest.json()) as { results: { name: string }[] }).results[0].name, "fx__echo_text");
    const write = await fetch(`${base}/v1/collections/fixture/tools/x`, { method: "PUT", headers: { ...s.auth(s.keys.admin), "content-type": "application/json" }, body: "{}" });
    assert.equal(write.status, 409, "an mcp collection is read-only over REST");
  });

  test("no key: 401; a session is bound to the key and collection that opened it", async () => {
    const anonymous = new Client({ name: "anon", version: "1.0.0" });
    await assert.rejects(anonymous.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/weather`))), /401|unauthorized/i);
    const client = await connect("weather", s.keys.read);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const other = await fetch(`${base}/mcp/kb`, {
      method: "POST",
      headers: { ...s.auth(s.keys.read), "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    assert.equal(other.status, 404);
  });
});
