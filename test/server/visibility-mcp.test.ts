/**
 * Tool visibility on `/mcp/{c}` with the official SDK client: a key limited to `billing_*` gets the same MCP answers
 * on the whole catalog as a full key on a billing-only twin; on an `mcp` collection, a denied upstream tool cannot be
 * found, described or called, and no answer names it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createApiKey } from "../../src/server/auth.js";
import { billingCatalog } from "../helpers/billing-catalog.js";
import { eventually, FIXTURE_SERVER, foundNames, textOf } from "../mcp/helpers.js";
import { makeService, type TestService } from "./helpers.js";

const catalog = billingCatalog();
const HIDDEN = /\b(crm|support|sales|ledger|admin|ops|audit|shipping)_/;

describe("/mcp/{c} with tool visibility", () => {
  let s: TestService;
  let base: string;
  let limited: string;
  let noPing: string;
  const clients: Client[] = [];

  before(async () => {
    s = await makeService();
    base = await s.app.listen({ port: 0, host: "127.0.0.1" });
    const put = (name: string, body: unknown) =>
      fetch(`${base}/v1/collections/${name}`, { method: "PUT", headers: { ...s.auth(s.keys.admin), "content-type": "application/json" }, body: JSON.stringify(body) });
    assert.equal((await put("acme", { kind: "tools", tools: catalog })).status, 201);
    assert.equal((await put("twin", { kind: "tools", tools: catalog.filter((t) => t.name.startsWith("billing_")) })).status, 201);
    assert.equal((await put("fixture", { kind: "mcp", mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER] } } })).status, 201);
    limited = (await createApiKey(s.store, { scope: "call", toolsAllow: ["billing_*"] })).key;
    noPing = (await createApiKey(s.store, { scope: "call", toolsDeny: ["fx__ping", "fx__freeze"] })).key;
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await s.close();
  });

  async function connect(collection: string, key: string): Promise<Client> {
    const client = new Client({ name: "visibility-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/${collection}`), { requestInit: { headers: s.auth(key) } }));
    clients.push(client);
    return client;
  }

  test("search_tools, describe_tool, select and tools/list answer as on a billing-only twin", async () => {
    const mine = await connect("acme", limited);
    const theirs = await connect("twin", s.keys.call);
    assert.deepEqual(await mine.listTools(), await theirs.listTools());
    const calls = [
      { name: "search_tools", arguments: { query: "refund an invoice", limit: 10 } },
      { name: "search_tools", arguments: { query: "invoice|receipt", engine: "regex", limit: 10 } },
      { name: "search_tools", arguments: { query: "ledgr zzzq" } },
      { name: "search_tools", arguments: { query: "select:billing_get_invoice_0,crm_get_refund_0" } },
      { name: "describe_tool", arguments: { name: "billing_get_invoice_0" } },
      { name: "describe_tool", arguments: { name: "crm_get_refund_0" } },
      { name: "call_tool", arguments: { name: "crm_get_refund_0", arguments: {} } },
    ];
    for (const call of calls) {
      const got = await mine.callTool(call);
      assert.deepEqual(got, await theirs.callTool(call), JSON.stringify(call));
      assert.ok(!HIDDEN.test(textOf(got).replaceAll("crm_get_refund_0", "")), textOf(got));
    }
    assert.equal(foundNames(await mine.callTool(calls[0])).length, 10);
  });

  test("an mcp collection: a denied upstream tool cannot be found, described or called", async () => {
    const client = await connect("fixture", noPing);
    await eventually(async () => foundNames(await client.callTool({ name: "search_tools", arguments: { query: "echo text" } })).includes("fx__echo_text"));
    const found = await client.callTool({ name: "search_tools", arguments: { query: "pong alive check ping", limit: 20 } });
    assert.ok(!foundNames(found).includes("fx__ping"), textOf(found));
    for (const call of [
      { name: "describe_tool", arguments: { name: "fx__ping" } },
      { name: "call_tool", arguments: { name: "fx__ping", arguments: {} } },
      { name: "call_tool", arguments: { name: "fx__pin", arguments: {} } },
    ]) {
      const answer = textOf(await client.callTool(call));
      assert.match(answer, /Unknown tool/, answer);
      assert.ok(!/fx__ping|fx__freeze/.test(answer.replaceAll(`"${call.arguments.name}"`, "")), answer);
    }
    assert.equal(textOf(await client.callTool({ name: "call_tool", arguments: { name: "fx__echo_text", arguments: { text: "hi" } } })), "hi");
    const everyone = await connect("fixture", s.keys.call);
    assert.match(textOf(await everyone.callTool({ name: "call_tool", arguments: { name: "fx__pin", arguments: {} } })), /fx__ping/, "a full key is told the near name");
  });
});
