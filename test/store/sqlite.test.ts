import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { Embedder } from "../../src/embeddings/embedder.js";
import { openStore } from "../../src/store/open.js";
import { SqliteStore } from "../../src/store/sqlite.js";
import type { UsageEvent } from "../../src/store/types.js";
import { LetterProvider } from "../helpers/letter-provider.js";
import { checkRequestIdsAfterMigration, OLD_AUDIT_ENTRY, storeContract } from "./contract.js";
import { makeTempDir } from "../helpers/temp-dir.js";

function tempDir(): string {
  return makeTempDir("toolsearch-store-");
}

/** Runs `body` with the path of a store file in a fresh folder, removed afterwards. */
async function withStorePath(body: (path: string, dir: string) => Promise<void>): Promise<void> {
  const dir = tempDir();
  try {
    await body(join(dir, "store.sqlite"), dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

storeContract("SqliteStore", async () => {
  const dir = tempDir();
  const store = await openStore(join(dir, "store.sqlite"));
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

test("SqliteStore: everything is there after closing and reopening the file", async () =>
  withStorePath(async (path) => {
    const first = await openStore(path);
    await first.putCollection("crm", "tools", {}, [{ key: "a", body: { name: "a", description: "A." } }]);
    await first.createKey({ id: "k", hash: "h", scope: "admin", createdAt: new Date().toISOString() });
    await first.putMany("p", [["t", new Float32Array([1, 2])]]);
    const seq = await first.latestSeq();
    await first.close();
    const second = await openStore(path);
    assert.equal((await second.getItem("crm", "a"))?.key, "a");
    assert.equal((await second.keyByHash("h"))?.id, "k");
    assert.equal((await second.getMany("p", ["t"], 2)).size, 1);
    assert.equal(await second.latestSeq(), seq);
    await second.close();
  }));

test("SqliteStore: WAL, synchronous FULL and our application id are set", async () =>
  withStorePath(async (path) => {
    await (await openStore(path)).close();
    const db = new Database(path, { readonly: true });
    assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
    assert.equal(db.pragma("application_id", { simple: true }), 0x54535331);
    assert.equal(db.pragma("user_version", { simple: true }), 11); // one per MIGRATIONS step
    db.close();
    const store = new SqliteStore(path);
    assert.equal((store as unknown as { db: Database.Database }).db.pragma("synchronous", { simple: true }), 2, "FULL");
    await store.close();
  }));

test("SqliteStore: its page cache is bounded at 2 MB, not better-sqlite3's 16 MB, and holds after writes", async () =>
  withStorePath(async (path) => {
    // A long-running gateway appends usage events it never reads again; with better-sqlite3's build default
    // (cache_size = -16000) those pages filled 16.9 MB of its RSS in issue 35's soak.
    const store = await openStore(path);
    const db = (store as unknown as { db: Database.Database }).db;
    const plain = new Database(":memory:");
    assert.equal(plain.pragma("cache_size", { simple: true }), -16000, "the build default this bounds");
    plain.close();
    assert.equal(db.pragma("cache_size", { simple: true }), -2000);
    // More pages than the cache holds: every event is still written and read back.
    const events: UsageEvent[] = Array.from({ length: 3000 }, (_, i) => ({ collection: ":gateway", session: "s", kind: "search", query: `query ${i} `.repeat(80), tools: ["t"], at: new Date().toISOString() }));
    await store.recordUsage(events);
    const back = await store.listUsage(":gateway", 5000);
    assert.equal(back.length, 3000);
    assert.equal(back[2999].query, events[2999].query);
    await store.close();
  }));

test("SqliteStore: a file made before audit entries had request ids migrates: its entries stay, new ones keep their id", async () =>
  withStorePath(async (path) => {
    const old = await openStore(path);
    await old.appendAudit([OLD_AUDIT_ENTRY]);
    await old.close();
    // Back to the schema of the previous release: no request_id column, one migration fewer.
    const db = new Database(path);
    db.exec("ALTER TABLE audit DROP COLUMN request_id");
    db.pragma(`user_version = ${(db.pragma("user_version", { simple: true }) as number) - 1}`);
    db.close();
    const store = await openStore(path);
    await checkRequestIdsAfterMigration(store);
    await store.close();
  }));

test("SqliteStore: a foreign SQLite file or a file from a newer version is refused and left untouched", async () =>
  withStorePath(async (_path, dir) => {
    const foreign = join(dir, "foreign.sqlite");
    const db = new Database(foreign);
    db.exec("CREATE TABLE mine (x)");
    db.close();
    await assert.rejects(openStore(foreign), { code: "store_unavailable", message: /another application/ });
    const check = new Database(foreign, { readonly: true });
    assert.deepEqual(check.prepare("SELECT name FROM sqlite_master").pluck().all(), ["mine"]);
    check.close();

    const newer = join(dir, "newer.sqlite");
    await (await openStore(newer)).close();
    const bump = new Database(newer);
    bump.pragma("user_version = 99");
    bump.close();
    await assert.rejects(openStore(newer), { code: "store_unavailable", message: /newer/ });

    const garbage = join(dir, "garbage.sqlite");
    writeFileSync(garbage, "not a database at all, just text that is long enough to have a header".repeat(20));
    await assert.rejects(openStore(garbage), { code: "store_unavailable" });
  }));

test("SqliteStore: a batch that fails inside the transaction rolls back every earlier write of it", async () =>
  withStorePath(async (path) => {
    const store = await openStore(path);
    await store.putCollection("crm", "tools", {}, [{ key: "a", body: {} }]);
    // A trigger (from another connection) fails the third row, after two rows and their change entries were written.
    const other = new Database(path);
    other.exec("CREATE TRIGGER boom BEFORE INSERT ON items WHEN NEW.key = 'boom' BEGIN SELECT RAISE(ABORT, 'refused by test'); END");
    other.close();
    const seq = await store.latestSeq();
    const seen: unknown[] = [];
    store.onChange((c) => seen.push(c));
    await assert.rejects(store.batch("crm", [{ key: "b", body: {} }, { key: "c", body: {} }, { key: "boom", body: {} }], ["a"]), {
      code: "store_unavailable",
    });
    assert.deepEqual((await store.listItems("crm")).map((i) => i.key), ["a"]);
    assert.equal(await store.latestSeq(), seq);
    assert.deepEqual(seen, [], "nothing is announced for a rolled-back write");
    await store.close();
  }));

test("SqliteStore: two handles on one file (server and keys CLI) see each other's writes", async () =>
  withStorePath(async (path) => {
    const [a, b] = await Promise.all([openStore(path), openStore(path)]);
    await a.createKey({ id: "k", hash: "h", scope: "read", createdAt: new Date().toISOString() });
    assert.equal((await b.keyByHash("h"))?.id, "k");
    await b.putCollection("x", "docs", {}, []);
    assert.deepEqual((await a.changesSince(0)).map((c) => c.collection), ["x"]);
    await Promise.all([a.close(), b.close()]);
  }));

test("openStore: a postgres URL without the PostgreSQL module is a clear store_unavailable", async (t) => {
  // Once src/store/postgres.ts exists this URL reaches a real (absent) server instead; both must be store_unavailable.
  await assert.rejects(openStore("postgres://nobody@127.0.0.1:1/none"), { code: "store_unavailable" });
  t.diagnostic("postgres URL refused as expected");
});

test("SqliteStore as an Embedder's cache: after reopening the store nothing is embedded again", async () =>
  withStorePath(async (path) => {
    const texts = ["check the weather", "convert currency", "send an email"];
    const first = await openStore(path);
    const provider1 = new LetterProvider();
    const vectors1 = await new Embedder(provider1, { cache: first }).embedMany(texts);
    assert.equal(provider1.seen.length, 3);
    await first.close();

    const second = await openStore(path);
    const provider2 = new LetterProvider();
    const embedder = new Embedder(provider2, { cache: second });
    const vectors2 = await embedder.embedMany([...texts, "a new text"]);
    assert.deepEqual(provider2.seen, ["a new text"], "only the new text reached the provider");
    assert.deepEqual(vectors2.slice(0, 3).map((v) => [...v]), vectors1.map((v) => [...v]));
    await embedder.close();
    assert.equal((await second.getMany("test-letters", [], 26)).size, 0, "closing the embedder left the store open");
    await second.close();
  }));

test("SqliteStore: onChange announces another connection's commits within watchMs, its own at once, and stops when nobody listens", async () =>
  withStorePath(async (path) => {
    const watcher = new SqliteStore(path, { watchMs: 20 });
    await watcher.migrate();
    const other = new SqliteStore(path, { watchMs: 0 }); // another process, as far as SQLite can tell: its own connection
    try {
      const seen: string[] = [];
      const stop = watcher.onChange((changes) => seen.push(...changes.map((c) => `${c.seq}:${c.collection}:${c.scope}`)));
      await other.putCollection("crm", "tools", {}, []);
      const deadline = Date.now() + 5000;
      while (!seen.some((s) => s.endsWith(":crm:collection")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.ok(seen.some((s) => s.endsWith(":crm:collection")), `the other connection's commit was announced: ${seen.join(", ")}`);
      await watcher.putCollection("own", "tools", {}, []);
      assert.ok(seen.some((s) => s.endsWith(":own:collection")), "an own commit is announced when it is answered");
      stop();
      const before = seen.length;
      await other.putCollection("later", "tools", {}, []);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(seen.length, before, "no listener, no announcement");
    } finally {
      await other.close();
      await watcher.close();
    }
  }));
