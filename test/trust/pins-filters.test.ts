/**
 * Pins record what the upstream offers, before the server block's allow/deny filter (issue 38): a real
 * @modelcontextprotocol/server-memory first run with `"tools": {"deny": ["read_*"]}` and then without the deny serves
 * `read_graph` at once, with nothing held; a real upstream (drifting-server.mjs) that really adds a tool still has it
 * held as "new", filter or no filter, unless its block says `"trust": "new-tools"`. Both on a real SQLite store, with
 * the gateway started lazily from its manifests as well as eagerly.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { parseGatewayConfig } from "../../src/mcp/config.js";
import { Gateway } from "../../src/mcp/gateway.js";
import { SqliteStore } from "../../src/store/sqlite.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { connectInMemory, ROOT, serverScript, textOf } from "../mcp/helpers.js";

const DRIFTING = join(ROOT, "test", "fixtures", "mcp", "drifting-server.mjs");
const object = (properties: Record<string, object> = {}) => ({ type: "object" as const, properties });
const READ_NOTE = { name: "read_note", description: "Reads a note by its title.", inputSchema: object({ title: { type: "string" } }) };
const WRITE_NOTE = { name: "write_note", description: "Writes a note under a title.", inputSchema: object({ title: { type: "string" }, text: { type: "string" } }) };
const READ_TAGS = { name: "read_tags", description: "Reads the tags of a note.", inputSchema: object({ title: { type: "string" } }) };

async function described(client: Client, name: string): Promise<string> {
  return textOf(await client.callTool({ name: "describe_tool", arguments: { name } }));
}

describe("pins come before the allow/deny filter", () => {
  const dir = makeTempDir("toolsearch-pins-filters-");
  let store: SqliteStore;
  const open: Gateway[] = [];
  const start = async (servers: Record<string, unknown>, eager = true) => {
    const gateway = await Gateway.start({ config: parseGatewayConfig({ mcpServers: servers }), manifests: store, pins: { store }, eager, log: () => {} });
    open.push(gateway);
    return { gateway, client: await connectInMemory(gateway) };
  };
  const stopAll = async () => {
    for (const gateway of open.splice(0)) await gateway.close();
  };

  before(async () => {
    store = new SqliteStore(join(dir, "store.sqlite"));
    await store.migrate();
  });
  after(async () => {
    await stopAll();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("server-memory: removing a deny pattern serves read_graph at once, nothing held", async () => {
    const memory = (extra: Record<string, unknown> = {}) => ({ memory: { command: process.execPath, args: [serverScript("server-memory")], env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") }, ...extra } });
    const denied = await start(memory({ tools: { deny: ["read_*"] } }));
    assert.match(await described(denied.client, "memory__read_graph"), /Unknown tool/, "the deny hides it");
    assert.match(await described(denied.client, "memory__create_entities"), /^\{/);
    assert.deepEqual(denied.gateway.held(), []);
    await stopAll();
    const pinned = (await store.listPins("gateway")).map((p) => p.tool);
    assert.ok(pinned.includes("read_graph"), `the pins hold what the upstream offers, denied or not: ${pinned.join(", ")}`);

    for (const eager of [true, false]) {
      const widened = await start(memory(), eager);
      assert.deepEqual(widened.gateway.held(), [], "no \"new\" hold for a tool the operator only un-denied");
      const readGraph = JSON.parse(await described(widened.client, "memory__read_graph")) as { name: string };
      assert.equal(readGraph.name, "memory__read_graph");
      const call = await widened.client.callTool({ name: "call_tool", arguments: { name: "memory__read_graph", arguments: {} } });
      assert.ok(!call.isError, textOf(call));
      await stopAll();
    }
  });

  it("an upstream that really adds a tool still has it held (a denied one too), unless trust is new-tools", async () => {
    const toolsFile = join(dir, "tools.json");
    const notes = (extra: Record<string, unknown> = {}) => ({ notes: { command: process.execPath, args: [DRIFTING], env: { DRIFT_TOOLS_FILE: toolsFile }, ...extra } });
    writeFileSync(toolsFile, JSON.stringify([READ_NOTE, WRITE_NOTE]));
    await start(notes({ tools: { deny: ["read_*"] } }));
    await stopAll();

    // The upstream adds read_tags while the deny is still in place, then the operator removes the deny.
    writeFileSync(toolsFile, JSON.stringify([READ_NOTE, WRITE_NOTE, READ_TAGS]));
    const stillDenied = await start(notes({ tools: { deny: ["read_*"] } }));
    assert.deepEqual(stillDenied.gateway.held().map((h) => [h.name, h.reason]), [["notes__read_tags", "new"]]);
    await stopAll();
    const widened = await start(notes());
    assert.deepEqual(widened.gateway.held().map((h) => [h.name, h.reason]), [["notes__read_tags", "new"]], "the added tool waits for review");
    assert.match(await described(widened.client, "notes__read_tags"), /Unknown tool/);
    assert.equal((JSON.parse(await described(widened.client, "notes__read_note")) as { description: string }).description, READ_NOTE.description, "the un-denied one is served");
    await stopAll();

    const trusting = await start(notes({ trust: "new-tools" }));
    assert.equal((JSON.parse(await described(trusting.client, "notes__read_tags")) as { description: string }).description, READ_TAGS.description);
    await stopAll();
  });
});
