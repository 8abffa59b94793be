/** Hosting MCP gateways of tools collections: one start shared, busy while starting or in use, sessions handed over. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ToolIndex } from "../../../src/indexes/tool-index.js";
import { GatewayHost, manifestOwner } from "../../../src/server/collections/gateway-host.js";
import type { LoadedCollection } from "../../../src/server/collections/types.js";
import type { Gateway } from "../../../src/mcp/gateway.js";
import type { Store } from "../../../src/store/types.js";
import { withStore, tool } from "./helpers.js";

async function toolsCollection(name: string, tools: string[]): Promise<LoadedCollection> {
  return {
    name, kind: "tools", version: 1, updatedAt: "2026-01-01T00:00:00.000Z", config: {}, source: "rebuild", loaded: true, storedSize: tools.length,
    tools: await ToolIndex.fromTools(tools.map((t) => tool(t, `The ${t} tool.`))),
  };
}

/** Counts the calls of a gateway's `close`. */
function countCloses(gateway: Gateway): () => number {
  let closes = 0;
  const close = gateway.close.bind(gateway);
  gateway.close = () => (closes++, close());
  return () => closes;
}

const hostOf = (store: Store) => new GatewayHost({ store, log: assert.fail, usage: (collection) => ({ collection, record: () => {} }) });

test("concurrent first sessions share one gateway; the collection is busy while it starts, idle once started with no session", async () => {
  await withStore(async (store) => {
    const host = hostOf(store);
    const crm = await toolsCollection("crm", ["send_email"]);
    assert.equal(await host.existing(crm), undefined);
    const starting = [host.gatewayOf(crm), host.gatewayOf(crm)];
    assert.equal(host.isBusy(crm), true, "starting");
    const [a, b] = await Promise.all(starting);
    assert.equal(a, b);
    assert.equal(crm.gateway, a);
    assert.equal(await host.existing(crm), a);
    assert.equal(host.isBusy(crm), false);
    a.createSession();
    assert.equal(host.isBusy(crm), true, "a session uses it");
    const closes = countCloses(a);
    await host.closeAll([crm]);
    assert.equal(closes(), 1);
  });
});

test("a replaced collection's open sessions move to the new gateway, which serves the new tools", async () => {
  await withStore(async (store) => {
    const host = hostOf(store);
    const before = await toolsCollection("crm", ["send_email"]);
    const old = await host.gatewayOf(before);
    old.createSession();
    const after = await toolsCollection("crm", ["send_email", "create_lead"]);
    await host.replace(before, after);
    assert.equal(old.sessionCount, 0);
    assert.ok(after.gateway, "created for the handed-over sessions");
    assert.equal(after.gateway!.sessionCount, 1);
    assert.equal(after.gateway!.index, after.tools);
    await host.closeAll([after]);
  });
});

test("without sessions a replace creates no gateway; retiring a tools collection closes its gateway", async () => {
  await withStore(async (store) => {
    const host = hostOf(store);
    const before = await toolsCollection("crm", ["send_email"]);
    const closedBefore = countCloses(await host.gatewayOf(before));
    const after = await toolsCollection("crm", ["create_lead"]);
    await host.replace(before, after);
    assert.equal(after.gateway, undefined);
    assert.equal(closedBefore(), 1, "the replaced gateway is closed");
    const closedAfter = countCloses(await host.gatewayOf(after));
    await host.retire(after);
    assert.equal(closedAfter(), 1, "a deleted collection's gateway is closed");
    assert.equal(manifestOwner("crm"), "collection:crm");
  });
});
