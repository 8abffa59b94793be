/**
 * Three real `toolsearch serve` processes on one real PostgreSQL: a write on one is searchable on the others (lag
 * measured, reported as diagnostics, never asserted), If-Match across replicas, concurrent writers, kill -9 of a
 * replica during writes, and PostgreSQL stopped and restarted while the replicas run.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { percentile } from "../../src/eval/metrics.js";
import { createApiKey } from "../../src/server/auth.js";
import { PostgresStore } from "../../src/store/postgres.js";
import { type PostgresServer, postgresMissing, startPostgres } from "../helpers/postgres.js";
import { call, type Replica, startReplica, waitFor } from "../helpers/replicas.js";
import { weatherTools } from "./helpers.js";

let server: PostgresServer;
let url: string;
let store: PostgresStore;
let auth: Record<string, string>;
const replicas: Replica[] = [];

const tool = (name: string, description: string) => ({ name, description, input_schema: { type: "object", properties: {} } });
const search = (r: Replica, query: string, collection = "crm") => call(r.url, "POST", `/v1/collections/${collection}/search`, { query, limit: 3 }, auth);
const finds = async (r: Replica, query: string, name: string) => (await search(r, query)).body?.results?.some((hit: { name: string }) => hit.name === name);

/** A word no fixture contains, letters only (the analyzer keeps it whole). */
const marker = (n: number) => `zq${String.fromCharCode(97 + (n % 26), 97 + (Math.floor(n / 26) % 26))}xv`;

describe("replicas of toolsearch serve on one PostgreSQL", { skip: postgresMissing }, () => {
  before(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
    store = new PostgresStore(url);
    await store.migrate();
    auth = { authorization: `Bearer ${(await createApiKey(store, { scope: "admin" })).key}` };
    for (let i = 0; i < 3; i++) replicas.push(await startReplica(["--store", url]));
    for (const r of replicas) await waitFor(async () => (await call(r.url, "GET", "/readyz")).status === 200, "readyz", 60_000, 50);
    const put = await call(replicas[0].url, "PUT", "/v1/collections/crm", { kind: "tools", tools: weatherTools() }, auth);
    assert.equal(put.status, 201, JSON.stringify(put.body));
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.kill("SIGKILL")));
    await store?.close();
    await server?.destroy();
  });

  test("a write on one replica is searchable on the others", async (t) => {
    const size = weatherTools().length;
    for (const r of replicas) await waitFor(async () => (await call(r.url, "GET", "/v1/collections/crm", undefined, auth)).body?.size === size, "the collection everywhere");
    const lags: number[] = [];
    for (let n = 0; n < 12; n++) {
      const via = replicas[n % 3];
      const name = `lag_probe_${n}`;
      const put = await call(via.url, "PUT", `/v1/collections/crm/tools/${name}`, tool(name, `Probe ${marker(n)} for propagation.`), auth);
      assert.equal(put.status, 201);
      for (const other of replicas.filter((r) => r !== via)) lags.push(await waitFor(() => finds(other, marker(n), name), `${name} on another replica`, 15_000, 2));
    }
    t.diagnostic(`propagation lag over ${lags.length} samples: p50 ${percentile(lags, 0.5).toFixed(1)} ms, max ${Math.max(...lags).toFixed(1)} ms`);
  });

  test("If-Match across replicas: of two writers with the same ETag one wins, the other gets 412", async () => {
    const first = await call(replicas[0].url, "PUT", "/v1/collections/crm/tools/contested", tool("contested", "Version zero."), auth);
    const etag = first.headers.get("etag")!;
    assert.ok(etag);
    const [b, c] = await Promise.all(
      [1, 2].map((i) => call(replicas[i].url, "PUT", "/v1/collections/crm/tools/contested", tool("contested", `Written by replica ${i}.`), { ...auth, "if-match": etag })),
    );
    assert.deepEqual([b.status, c.status].sort(), [200, 412]);
    const loser = b.status === 412 ? b : c;
    assert.equal(loser.body.error.code, "precondition_failed");
    const winner = b.status === 200 ? 1 : 2;
    const now = await call(replicas[0].url, "GET", "/v1/collections/crm/tools/contested", undefined, auth);
    assert.equal(now.body.description, `Written by replica ${winner}.`);
  });

  test("concurrent writers on every replica: all writes land everywhere", async () => {
    const writes = replicas.flatMap((r, i) => Array.from({ length: 15 }, (_, j) => call(r.url, "PUT", `/v1/collections/crm/tools/w${i}_${j}`, tool(`w${i}_${j}`, `Writer ${i} item ${j}.`), auth)));
    const answers = await Promise.all(writes);
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [201]);
    const expected = (await store.listItems("crm")).length;
    for (const r of replicas) await waitFor(async () => (await call(r.url, "GET", "/v1/collections/crm", undefined, auth)).body?.size === expected, "every write on every replica");
  });

  test("kill -9 of a replica during writes: every acknowledged write is there, the batch is all or nothing", async (t) => {
    const victim = await startReplica(["--store", url]);
    await waitFor(async () => (await call(victim.url, "GET", "/readyz")).status === 200, "the victim ready", 60_000, 50);
    const acked: string[] = [];
    let stop = false;
    let refused = "";
    const stream = (async () => {
      for (let n = 0; !stop; n++) {
        const answer = await call(victim.url, "PUT", `/v1/collections/crm/tools/k9_${n}`, tool(`k9_${n}`, `Stream item ${n}.`), auth).catch(() => undefined);
        if (answer?.status === 201) acked.push(`k9_${n}`);
        else {
          refused = `${answer?.status ?? "no answer"} ${JSON.stringify(answer?.body ?? "")}`;
          break;
        }
      }
    })();
    await waitFor(() => acked.length >= 2 || refused !== "", "some acknowledged writes", 90_000);
    assert.equal(refused, "", "the stream of writes was answered");
    // The batch goes out while the stream runs, and the kill follows shortly: most runs cut it mid-way.
    const batch = Array.from({ length: 1500 }, (_, n) => tool(`k9_batch_${n}`, `Batch item ${n}.`));
    const batchAnswer = call(victim.url, "POST", "/v1/collections/crm/batch", { upsert: batch }, auth).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await victim.kill("SIGKILL");
    stop = true;
    await stream;
    const batchResult = await batchAnswer;
    const keys = new Set((await store.listItems("crm")).map((i) => i.key));
    for (const name of acked) assert.ok(keys.has(name), `${name} was acknowledged, so it must be stored`);
    const landed = batch.filter((b) => keys.has(b.name)).length;
    assert.ok(landed === 0 || landed === batch.length, `the batch is all or nothing (found ${landed} of ${batch.length})`);
    if (batchResult?.status === 200) assert.equal(landed, batch.length, "an acknowledged batch is stored whole");
    t.diagnostic(`${acked.length} acknowledged writes before the kill, all stored; batch ${landed ? "committed" : "not committed"} (answer: ${batchResult?.status ?? "none"})`);
    // The survivors converge on the store's state.
    for (const r of replicas) await waitFor(async () => (await call(r.url, "GET", "/v1/collections/crm", undefined, auth)).body?.size === keys.size, "the survivors to converge");
  });

  test("PostgreSQL stopped: writes are 503 store_unavailable, searches keep answering; after the restart they catch up", async () => {
    const [r0, r1, r2] = replicas;
    assert.equal((await search(r1, "weather")).status, 200, "a search before the outage (the key is known)");
    await server.stop();
    try {
      const write = await call(r0.url, "PUT", "/v1/collections/crm/tools/during_outage", tool("during_outage", "Never stored."), auth);
      assert.equal(write.status, 503);
      assert.equal(write.body.error.code, "store_unavailable");
      const batch = await call(r0.url, "POST", "/v1/collections/crm/batch", { upsert: [tool("outage_batch", "Never stored.")] }, auth);
      assert.equal(batch.status, 503);
      for (const r of [r1, r2]) {
        const answer = await search(r, "weather forecast");
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.ok(answer.body.results.length > 0);
      }
      const ready = await call(r1.url, "GET", "/readyz");
      assert.equal(ready.status, 200, "a caught-up replica stays in the balancer");
      assert.equal(ready.body.store, "unavailable");
    } finally {
      await server.start();
    }
    await waitFor(async () => (await call(r0.url, "PUT", "/v1/collections/crm/tools/after_outage", tool("after_outage", `Back ${marker(500)} again.`), auth)).status < 300, "a write after the restart", 30_000, 200);
    for (const r of [r1, r2]) await waitFor(() => finds(r, marker(500), "after_outage"), "the other replicas to catch up after reconnecting", 30_000, 20);
    const keys = (await store.listItems("crm")).map((i) => i.key);
    assert.ok(!keys.includes("during_outage") && !keys.includes("outage_batch"), "nothing of the refused writes was applied");
    for (const r of replicas) assert.equal((await call(r.url, "GET", "/readyz")).body.store, "ok");
  });
});
