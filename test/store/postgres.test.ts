/**
 * PostgresStore against a real PostgreSQL 15 started for this file: the shared store contract, then what only a
 * shared store has to get right (several processes' writers, the feed across connections, faults).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { PostgresStore, hidePassword } from "../../src/store/postgres.js";
import type { Change } from "../../src/store/types.js";
import { type PostgresServer, postgresMissing, startPostgres } from "../helpers/postgres.js";
import { checkRequestIdsAfterMigration, OLD_AUDIT_ENTRY, storeContract } from "./contract.js";

let server: PostgresServer;
let url: string;
let schemas = 0;

/** A migrated store in a schema of its own (as cheap as a new database, and the tests stay independent). */
async function openSchema(schema = `s${++schemas}`, options: ConstructorParameters<typeof PostgresStore>[1] = {}): Promise<PostgresStore> {
  const store = new PostgresStore(url, { schema, pollMs: 200, ...options });
  await store.migrate();
  return store;
}

async function eventually(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!(await predicate())) {
    if (Date.now() - start > timeoutMs) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const tool = (name: string, description = `Does ${name}.`) => ({ name, description, input_schema: { type: "object" } });

describe("PostgresStore", { skip: postgresMissing }, () => {
  before(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
  });
  after(async () => {
    await server?.destroy();
  });

  storeContract("PostgresStore", async () => {
    const store = await openSchema();
    return { store, cleanup: () => store.close() };
  });

  test("a store made before audit entries had request ids migrates: its entries stay, new ones keep their id", async () => {
    const old = await openSchema("before_request_ids");
    await old.appendAudit([OLD_AUDIT_ENTRY]);
    await old.close();
    // Back to the schema of the previous release: no request_id column, one migration fewer.
    const client = new pg.Client(url);
    await client.connect();
    await client.query("ALTER TABLE before_request_ids.audit DROP COLUMN request_id");
    await client.query("DELETE FROM before_request_ids.migrations WHERE version = (SELECT max(version) FROM before_request_ids.migrations)");
    await client.end();
    const store = await openSchema("before_request_ids");
    await checkRequestIdsAfterMigration(store);
    await store.close();
  });

  test("three stores migrating the same fresh schema at once: one set of tables, no error", async () => {
    const stores = [0, 1, 2].map(() => new PostgresStore(url, { schema: "racing" }));
    await Promise.all(stores.map((s) => s.migrate()));
    const client = new pg.Client(url);
    await client.connect();
    const { rows } = await client.query("SELECT version FROM racing.migrations");
    await client.end();
    assert.deepEqual(rows.map((r) => r.version), [1, 2, 3, 4, 5, 6, 7, 8, 9]); // one per MIGRATIONS step
    await stores[0].putCollection("x", "tools", {}, []);
    assert.equal((await stores[2].getCollection("x"))?.name, "x");
    await Promise.all(stores.map((s) => s.close()));
  });

  test("a schema from a newer toolsearch is refused, not written into", async () => {
    const store = await openSchema("newer");
    const client = new pg.Client(url);
    await client.connect();
    await client.query("INSERT INTO newer.migrations (version) VALUES (99)");
    await client.end();
    await assert.rejects(store.migrate(), { code: "store_unavailable", message: /newer than this toolsearch/ });
    await store.close();
  });

  test("concurrent writers on two stores: every change reaches a third store's listener once, in seq order, with no gap", async () => {
    const [a, b, reader] = [await openSchema("fleet"), await openSchema("fleet"), await openSchema("fleet")];
    await a.putCollection("crm", "tools", {}, []);
    const seen: Change[] = [];
    reader.onChange((changes) => seen.push(...changes));
    const writes = [];
    for (let i = 0; i < 60; i++) {
      const store = i % 2 ? a : b;
      writes.push(i % 3 === 0 ? store.batch("crm", [{ key: `t${i}`, body: tool(`t${i}`) }, { key: `u${i}`, body: tool(`u${i}`) }], []) : store.putItem("crm", { key: `t${i}`, body: tool(`t${i}`) }));
    }
    await Promise.all(writes);
    const top = await reader.latestSeq();
    await eventually(() => seen.at(-1)?.seq === top, "the reader to reach the last seq");
    const first = seen[0].seq;
    assert.deepEqual(
      seen.map((c) => c.seq),
      Array.from({ length: top - first + 1 }, (_, i) => first + i),
      "contiguous, no repeats",
    );
    assert.equal((await reader.getCollection("crm"))?.size, 80);
    await Promise.all([a.close(), b.close(), reader.close()]);
  });

  test("two writers with the same If-Match: one wins, the other gets precondition_failed", async () => {
    const [a, b] = [await openSchema("etag"), await openSchema("etag")];
    await a.putCollection("crm", "tools", {}, [{ key: "x", body: tool("x") }]);
    const { etag } = (await a.getItem("crm", "x"))!;
    const results = await Promise.allSettled([
      a.putItem("crm", { key: "x", body: tool("x", "from a") }, { ifMatch: etag }),
      b.putItem("crm", { key: "x", body: tool("x", "from b") }, { ifMatch: etag }),
    ]);
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    const failed = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    assert.equal(failed.reason.code, "precondition_failed");
    await Promise.all([a.close(), b.close()]);
  });

  test("a listener whose LISTEN connection is killed reconnects and receives what was written meanwhile", async () => {
    const [writer, follower] = [await openSchema("cut"), await openSchema("cut")];
    await writer.putCollection("crm", "tools", {}, []);
    const seen: Change[] = [];
    follower.onChange((changes) => seen.push(...changes));
    await eventually(() => follower.feedStatus().listening, "the follower to listen");
    const admin = new pg.Client(url);
    await admin.connect();
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()");
    await admin.end();
    await eventually(() => !follower.feedStatus().listening, "the follower to notice");
    for (let i = 0; i < 5; i++) await writer.putItem("crm", { key: `while-away-${i}`, body: tool(`w${i}`) });
    await eventually(() => seen.filter((c) => c.key?.startsWith("while-away")).length === 5, "the missed changes");
    assert.ok(follower.feedStatus().listening);
    assert.equal(new Set(seen.map((c) => c.seq)).size, seen.length, "no change twice");
    await Promise.all([writer.close(), follower.close()]);
  });

  test("PostgreSQL stopped: writes and reads are store_unavailable and change nothing; after a restart all works and the feed catches up", async () => {
    const [writer, follower] = [await openSchema("fault", { connectTimeoutMs: 1000 }), await openSchema("fault")];
    await writer.putCollection("crm", "tools", {}, [{ key: "a", body: tool("a") }]);
    const seen: Change[] = [];
    follower.onChange((changes) => seen.push(...changes));
    await eventually(() => follower.feedStatus().listening, "the follower to listen");
    await server.stop();
    try {
      await assert.rejects(writer.putItem("crm", { key: "b", body: tool("b") }), { code: "store_unavailable" });
      await assert.rejects(writer.batch("crm", [{ key: "c", body: tool("c") }], ["a"]), { code: "store_unavailable" });
      await assert.rejects(writer.getItem("crm", "a"), (error: Error & { code: string }) => error.code === "store_unavailable" && !/secret/.test(error.message));
      await eventually(() => !follower.feedStatus().listening, "the follower to lose its connection");
    } finally {
      await server.start();
    }
    await eventually(async () => {
      try {
        await writer.putItem("crm", { key: "after", body: tool("after") });
        return true;
      } catch {
        return false;
      }
    }, "a write to succeed after the restart");
    assert.deepEqual((await writer.listItems("crm")).map((i) => i.key), ["a", "after"], "nothing of the failed writes was applied");
    await eventually(() => seen.some((c) => c.key === "after"), "the follower to catch up after the restart");
    await eventually(() => follower.feedStatus().listening, "the follower to listen again");
    await Promise.all([writer.close(), follower.close()]);
  });

  test("an unreachable server is store_unavailable at migrate, and the password never appears", async () => {
    const store = new PostgresStore("postgres://user:secret@127.0.0.1:1/none", { connectTimeoutMs: 500 });
    assert.equal(store.location, "postgres://user:***@127.0.0.1:1/none");
    await assert.rejects(store.migrate(), (error: Error & { code: string }) => error.code === "store_unavailable" && !error.message.includes("secret"));
    await store.close();
    assert.equal(hidePassword("postgres://a@h/db"), "postgres://a@h/db");
  });
});
