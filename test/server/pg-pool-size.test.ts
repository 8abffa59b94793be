/**
 * `serve --pg-pool-size N`: refused with a message naming the rule when it is not a whole number from 1 to 1000 or the
 * store is not PostgreSQL, and, on a real PostgreSQL, the most connections a replica opens under concurrent writes:
 * N for the pool plus one for LISTEN, counted in `pg_stat_activity`.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { type PostgresServer, postgresMissing, startPostgres } from "../helpers/postgres.js";
import { call, startReplica, waitFor } from "../helpers/replicas.js";
import { serveCli } from "./helpers.js";

test("--pg-pool-size out of range, or with a SQLite store, is a usage error that says why", () => {
  for (const bad of ["0", "1001", "two"]) {
    const result = serveCli(["--pg-pool-size", bad, "--store", "postgres://toolsearch@127.0.0.1:1/none"]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`--pg-pool-size takes a whole number from 1 to 1000 \\(got "${bad}"\\)`));
  }
  const sqlite = serveCli(["--pg-pool-size", "4"]); // the default store: SQLite in $TOOLSEARCH_HOME
  assert.equal(sqlite.code, 2, sqlite.stderr);
  assert.match(sqlite.stderr, /--pg-pool-size applies only to a PostgreSQL store \(--store postgres:\/\/…\)/);
  // The variable is --pg-pool-size's environment form (src/ops/settings.ts), so a bad value is a usage error too.
  const environment = serveCli(["--store", "postgres://toolsearch@127.0.0.1:1/none"], { TOOLSEARCH_PG_POOL_SIZE: "lots" });
  assert.equal(environment.code, 2, environment.messages);
  assert.match(environment.messages, /TOOLSEARCH_PG_POOL_SIZE takes a whole number from 1 to 1000 \(got "lots"\)/);
});

describe("--pg-pool-size on a real PostgreSQL", { skip: postgresMissing }, () => {
  let server: PostgresServer;
  before(async () => {
    server = await startPostgres();
  });
  after(async () => {
    await server?.destroy();
  });

  /** Connections a replica holds after 24 concurrent writes, with this flag. */
  async function connectionsUnderLoad(poolSize: number): Promise<number> {
    const url = await server.createDatabase();
    const replica = await startReplica(["--store", url, "--no-auth", "--pg-pool-size", String(poolSize)]);
    const observer = new pg.Client({ connectionString: url });
    try {
      await waitFor(async () => (await call(replica.url, "GET", "/readyz")).status === 200, "readyz", 60_000, 50);
      assert.equal((await call(replica.url, "PUT", "/v1/collections/crm", { kind: "tools", tools: [] })).status, 201);
      const writes = await Promise.all(Array.from({ length: 24 }, (_, i) =>
        call(replica.url, "PUT", `/v1/collections/crm/tools/t${i}`, { name: `t${i}`, description: `Tool number ${i}.`, input_schema: { type: "object", properties: {} } })));
      assert.deepEqual(writes.map((w) => w.status), writes.map(() => 201));
      await observer.connect();
      // The observer's own connection has no application_name; the replica's all say "toolsearch".
      const { rows } = await observer.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'toolsearch'");
      return Number(rows[0].n);
    } finally {
      await observer.end().catch(() => undefined);
      await replica.kill("SIGTERM");
    }
  }

  test("a replica opens at most N pooled connections plus one for LISTEN", async () => {
    const small = await connectionsUnderLoad(2);
    assert.ok(small >= 2 && small <= 3, `--pg-pool-size 2: ${small} connections`);
    // The same load with a larger pool opens more: the flag, not the load, set the bound above.
    const large = await connectionsUnderLoad(6);
    assert.ok(large > 3 && large <= 7, `--pg-pool-size 6: ${large} connections`);
  });
});
