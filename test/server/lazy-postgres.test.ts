/**
 * Two replicas (two `Collections`, each with its own PostgreSQL pool) on one real PostgreSQL, each under a memory
 * budget: a change made through one replica to a collection the other has dropped is seen on that collection's next
 * load there, and a collection replaced whole meanwhile is rebuilt, not patched.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Collections } from "../../src/server/collections.js";
import { PostgresStore } from "../../src/store/postgres.js";
import { type PostgresServer, postgresMissing, startPostgres } from "../helpers/postgres.js";
import { weatherTools } from "./helpers.js";

const tool = (name: string, description: string) => ({ name, description, input_schema: { type: "object", properties: {} } });
const keyOf = (t: Record<string, unknown>) => String(t.name ?? (t.function as { name: string }).name);
const items = (extra: string) => [...weatherTools(), tool(`${extra}_only`, `Only ${extra} has this.`)].map((t) => ({ key: keyOf(t), body: t }));

describe("load on first use and eviction, two replicas on PostgreSQL", { skip: postgresMissing }, () => {
  let server: PostgresServer;
  let url: string;
  before(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
  });
  after(async () => server?.destroy());

  test("a change to an evicted collection is seen correctly on its next load", async () => {
    const stores = [new PostgresStore(url), new PostgresStore(url)];
    await stores[0].migrate();
    await stores[1].migrate();
    for (const name of ["one", "two", "three"]) await stores[0].putCollection(name, "tools", {}, items(name));
    const [writer, reader] = stores.map((store) => new Collections(store, { preload: {}, log: () => {}, snapshots: { saveDelayMs: 60_000 } }));
    await writer.start();
    // The budget: one collection fits, two do not.
    const probe = await writer.resolve("one");
    const budget = Math.round(probe.tools!.memoryBytes() * 1.5);
    const budgeted = new Collections(stores[1], { preload: {}, log: () => {}, memoryBudgetBytes: budget, snapshots: { saveDelayMs: 60_000 } });
    await reader.close();
    await budgeted.start();
    try {
      assert.equal((await budgeted.resolve("one")).tools!.searchSync("one only", { limit: 1 })[0].name, "one_only");
      await budgeted.resolve("two");
      assert.equal(budgeted.find("one"), undefined, "one was dropped for two");
      assert.ok((await stores[1].getSnapshot("one")) !== undefined, "its snapshot was saved when it was dropped");

      // Through the other replica: an item added and one deleted while "one" is dropped on the budgeted replica.
      const added = tool("glacier_melt_index", "Glacier melt index for a mountain range.");
      await stores[0].putItem("one", { key: added.name, body: added });
      await stores[0].deleteItem("one", "one_only");
      await writer.sync();
      await budgeted.sync();
      const back = await budgeted.resolve("one");
      assert.equal(back.source, "snapshot");
      assert.equal(back.version, (await stores[0].getCollection("one"))!.version);
      assert.equal(back.tools!.searchSync("glacier melt", { limit: 1 })[0]?.name, "glacier_melt_index");
      assert.equal(back.tools!.get("one_only"), undefined);
      assert.deepEqual(back.tools!.names().sort(), (await writer.resolve("one")).tools!.names().sort(), "both replicas hold the same tools");

      // Replaced whole while dropped: the next load rebuilds from the items.
      await budgeted.resolve("three");
      assert.equal(budgeted.find("one"), undefined);
      await stores[0].putCollection("one", "tools", {}, [{ key: "solo", body: tool("solo", "The only tool left.") }]);
      await budgeted.sync();
      const replaced = await budgeted.resolve("one");
      assert.deepEqual(replaced.tools!.names(), ["solo"]);
    } finally {
      await writer.close();
      await budgeted.close();
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
