/**
 * The shared store: PostgreSQL (≥ 15) through a `pg` pool. Any number of `toolsearch serve` replicas open the same
 * database; each keeps its indexes in memory and follows the others' writes through the change feed.
 *
 * The change log and why its sequence never skips: every write that changes a collection or an item first locks the
 * one row of `feed` (`SELECT … FOR UPDATE`), takes its next numbers from it, and writes the new high mark back in the
 * same transaction. The row lock is held until COMMIT, so writers queue on it and commit in `seq` order, and a rolled
 * back write returns its numbers. A reader that has seen `seq = n` committed therefore knows that every change up to
 * `n` is committed too: catching up with `seq > last` can never step over a change that commits later with a lower
 * number (the trap of a plain `bigserial`, where numbers are taken at insert time and commit out of order), and a gap
 * in what it reads can only mean the log was pruned. The cost is that writes to the change log are serialized
 * fleet-wide; for a catalog that is read far more than written, that is the right trade (measured in
 * docs/deployment.md). Writes outside the log (keys, settings, vectors, manifests) do not take the lock.
 *
 * The feed: a write sends `NOTIFY` in its transaction (PostgreSQL delivers it only on commit). A dedicated connection
 * LISTENs; on a notification, on a local commit, on (re)connecting and on a slow timer it reads the log from the last
 * `seq` it delivered, so a lost notification or connection delays a change but never loses or repeats one.
 */
import pg from "pg";
import { ToolsearchError } from "../errors.js";
import { AUDIT_COLUMNS, type AuditRow, auditColumns, auditWhere, checkMatch, MAX_POOL_SIZE, etagOf, globsColumn, type KeyRow, pinFromRow, type PinRow, pinState, toAudit, toKey, toVector, unknownCollection } from "./records.js";
import { toUsage, type UsageRow } from "./usage-rows.js";
import type {
  ApiKeyRecord,
  AuditEntry,
  AuditQuery,
  AuditRecord,
  Change,
  CollectionKind,
  CollectionRecord,
  ItemInput,
  ItemRecord,
  ManifestRecord,
  CurationKind,
  SnapshotRecord,
  PinRecord,
  Store,
  UsageEvent,
  Unsubscribe,
  WriteOptions,
} from "./types.js";

/** Options of a `PostgresStore`. */
export interface PostgresStoreOptions {
  /** Connections in the pool (default `$TOOLSEARCH_PG_POOL_SIZE`, else 10). The feed uses one more of its own. */
  poolSize?: number;
  /** Schema that holds the tables (default `toolsearch`); created on `migrate()`. */
  schema?: string;
  /** How long to wait for a connection before `store_unavailable` (default 5000 ms). */
  connectTimeoutMs?: number;
  /** Longest a statement may run before `store_unavailable` (default 30000 ms). */
  statementTimeoutMs?: number;
  /** How often the feed reads the log even without a notification, as a safety net (default 5000 ms). */
  pollMs?: number;
}

/** Schema steps, applied in order under an advisory lock; `migrations` records which ran. Append, never edit. */
const MIGRATIONS: string[] = [
  `CREATE TABLE collections (
     name text PRIMARY KEY, kind text NOT NULL, config text NOT NULL,
     updated_at timestamptz NOT NULL, version bigint NOT NULL);
   CREATE TABLE items (
     collection text NOT NULL REFERENCES collections(name) ON DELETE CASCADE,
     key text NOT NULL, body text NOT NULL, etag text NOT NULL, updated_at timestamptz NOT NULL,
     PRIMARY KEY (collection, key));
   CREATE TABLE feed (id int PRIMARY KEY CHECK (id = 1), seq bigint NOT NULL, pruned bigint NOT NULL);
   INSERT INTO feed VALUES (1, 0, 0);
   CREATE TABLE changes (
     seq bigint PRIMARY KEY, collection text NOT NULL, scope text NOT NULL, key text,
     committed_at timestamptz NOT NULL DEFAULT now());
   CREATE TABLE api_keys (
     id text PRIMARY KEY, hash text NOT NULL UNIQUE, scope text NOT NULL, collection text, label text,
     created_at text NOT NULL, revoked_at text);
   CREATE TABLE settings (key text PRIMARY KEY, value text NOT NULL);
   CREATE TABLE vectors (provider text NOT NULL, hash text NOT NULL, vector bytea NOT NULL, PRIMARY KEY (provider, hash));
   CREATE TABLE manifests (
     owner text NOT NULL, server text NOT NULL, config_hash text NOT NULL, tools text NOT NULL,
     updated_at timestamptz NOT NULL, PRIMARY KEY (owner, server));`,
  // Resources, templates and prompts of each manifest's server (SPEC §14), JSON; NULL for older manifests.
  `ALTER TABLE manifests ADD COLUMN offer text;`,
  // Tool visibility per key (SPEC §16): JSON arrays of name globs, NULL for none.
  `ALTER TABLE api_keys ADD COLUMN tools_allow text, ADD COLUMN tools_deny text;`,
  // The audit log (SPEC §16): who did what, when, with what outcome.
  `CREATE TABLE audit (
     id bigserial PRIMARY KEY, at text NOT NULL, who text NOT NULL, action text NOT NULL,
     collection text NOT NULL, target text, outcome text NOT NULL, duration_ms double precision NOT NULL,
     argument_bytes integer, arguments text);
   CREATE INDEX audit_at ON audit (at);`,
  // Curation (synonyms, pinned rules) per collection and usage events (SPEC §17).
  `CREATE TABLE curation (
     collection text NOT NULL REFERENCES collections(name) ON DELETE CASCADE,
     kind text NOT NULL, body text NOT NULL, PRIMARY KEY (collection, kind));
   CREATE TABLE usage_events (
     id bigserial PRIMARY KEY, collection text NOT NULL, session text NOT NULL, kind text NOT NULL,
     query text, tools text NOT NULL, outcome text, at timestamptz NOT NULL);
   CREATE INDEX usage_events_by_collection ON usage_events (collection, id);`,
  // Secrets (OAuth tokens, client secrets), sealed with AES-256-GCM (SPEC §15).
  `CREATE TABLE secrets (
     owner text NOT NULL, name text NOT NULL, sealed text NOT NULL, updated_at timestamptz NOT NULL,
     PRIMARY KEY (owner, name));`,
  // Index snapshots, binary, one row per collection version (SPEC §9).
  `CREATE TABLE snapshots (
     collection text NOT NULL, version bigint NOT NULL, encoding text NOT NULL, bytes bytea NOT NULL,
     created_at timestamptz NOT NULL, PRIMARY KEY (collection, version));`,
  // Pinned upstream tool definitions and what waits for review (SPEC §16).
  `CREATE TABLE tool_pins (
     owner text NOT NULL, server text NOT NULL, tool text NOT NULL, state text NOT NULL,
     updated_at timestamptz NOT NULL, PRIMARY KEY (owner, server, tool));`,
  // What result screening found in a call's result (SPEC §16), JSON; NULL when nothing was flagged.
  `ALTER TABLE audit ADD COLUMN screen text;`,
  // The request id of each audit entry (SPEC §18), to find a call's log lines; NULL for older entries.
  `ALTER TABLE audit ADD COLUMN request_id text;`,
];

interface CollectionRow {
  name: string;
  kind: CollectionKind;
  config: string;
  updated_at: Date;
  version: string;
  size: string;
}

interface ItemRow {
  collection: string;
  key: string;
  body: string;
  etag: string;
  updated_at: Date;
}


/** One write transaction: its client, and the change-log numbers it has taken. */
class Tx {
  readonly changes: Change[] = [];
  private next = 0;

  constructor(
    readonly client: pg.PoolClient,
    private readonly s: string,
  ) {}

  /** Locks the feed row (queueing behind other writers until they commit) and reads the high mark. */
  async lockFeed(): Promise<void> {
    const { rows } = await this.client.query(`SELECT seq FROM ${this.s}.feed WHERE id = 1 FOR UPDATE`);
    this.next = Number(rows[0].seq);
  }

  /** Takes the next number for a change of this key. */
  log(collection: string, scope: Change["scope"], key?: string): number {
    const seq = ++this.next;
    this.changes.push(key !== undefined ? { seq, collection, scope, key } : { seq, collection, scope });
    return seq;
  }

  query<R extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    return this.client.query<R>(text, values);
  }
}

const DEFAULT_POOL_SIZE = 10;

/**
 * The pool size `TOOLSEARCH_PG_POOL_SIZE` asks for (10 when unset). Anything but a whole number from 1 to
 * `MAX_POOL_SIZE` is refused with `invalid_option`, rather than silently replaced by the default.
 */
export function poolSizeFromEnvironment(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.TOOLSEARCH_PG_POOL_SIZE;
  if (value === undefined || value.trim() === "") return DEFAULT_POOL_SIZE;
  const size = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || size < 1 || size > MAX_POOL_SIZE) {
    throw new ToolsearchError("invalid_option", `TOOLSEARCH_PG_POOL_SIZE takes a whole number from 1 to ${MAX_POOL_SIZE} (got ${JSON.stringify(value)})`);
  }
  return size;
}

/**
 * The PostgreSQL store.
 *
 * @example
 * const store = new PostgresStore("postgres://toolsearch:secret@db:5432/toolsearch", { poolSize: 20 });
 * await store.migrate();
 * store.onChange((changes) => console.log(changes)); // every replica's commits, in seq order, once each
 */
export class PostgresStore implements Store {
  readonly kind = "postgres";
  readonly location: string;
  private readonly pool: pg.Pool;
  private readonly s: string;
  private readonly channel: string;
  private readonly feed: ChangeFeed;

  constructor(url: string, options: PostgresStoreOptions = {}) {
    this.location = hidePassword(url);
    const schema = options.schema ?? "toolsearch";
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw new ToolsearchError("invalid_option", `schema ${JSON.stringify(schema)} must match ^[a-z_][a-z0-9_]{0,62}$`);
    }
    this.s = `"${schema}"`;
    this.channel = `${schema}_changes`;
    const statementTimeout = options.statementTimeoutMs ?? 30_000;
    const connection = {
      connectionString: url,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      statement_timeout: statementTimeout,
      // A replica cut off mid-transaction (network partition) must not hold the change-log lock for the whole fleet
      // until TCP notices: the server ends such a session after this long.
      idle_in_transaction_session_timeout: 10_000,
      keepAlive: true,
      application_name: "toolsearch",
    };
    const poolSize = options.poolSize ?? poolSizeFromEnvironment();
    if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > MAX_POOL_SIZE) {
      throw new ToolsearchError("invalid_option", `poolSize takes a whole number from 1 to ${MAX_POOL_SIZE} (got ${poolSize})`);
    }
    this.pool = new pg.Pool({ ...connection, max: poolSize });
    // An idle connection that dies (server restart) is dropped by the pool; without a handler it would crash us.
    this.pool.on("error", () => {});
    this.feed = new ChangeFeed({
      connect: () => new pg.Client(connection),
      channel: this.channel,
      read: (after) => this.changesSince(after, 1000),
      pollMs: options.pollMs ?? 5000,
    });
  }

  async migrate(): Promise<void> {
    const lock = `toolsearch.migrate:${this.s}`;
    await this.withClient(async (client) => {
      // Session lock: a second replica starting at the same moment waits here, then finds nothing left to do.
      await client.query("SELECT pg_advisory_lock(hashtext($1))", [lock]);
      try {
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.s}`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.s}.migrations (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
        const { rows } = await client.query(`SELECT coalesce(max(version), 0) AS v FROM ${this.s}.migrations`);
        const version = Number(rows[0].v);
        if (version > MIGRATIONS.length) {
          throw new ToolsearchError(
            "store_unavailable",
            `store ${this.location}: schema version ${version} is newer than this toolsearch understands (${MIGRATIONS.length}); upgrade toolsearch`,
          );
        }
        for (let step = version; step < MIGRATIONS.length; step++) {
          await client.query("BEGIN");
          try {
            await client.query(`SET LOCAL search_path TO ${this.s}`);
            await client.query(MIGRATIONS[step]);
            await client.query(`INSERT INTO ${this.s}.migrations (version) VALUES ($1)`, [step + 1]);
            await client.query("COMMIT");
          } catch (error) {
            await client.query("ROLLBACK").catch(() => {});
            throw error;
          }
        }
      } finally {
        await client.query("SELECT pg_advisory_unlock(hashtext($1))", [lock]).catch(() => {});
      }
    });
    this.feed.startFrom(await this.latestSeq());
  }

  async close(): Promise<void> {
    await this.feed.stop();
    await this.pool.end().catch(() => {});
  }

  /**
   * Whether the feed's LISTEN connection is up, and the last `seq` delivered to `onChange` listeners. A replica is
   * caught up when `delivered` reaches `latestSeq()` and what it delivered is applied.
   */
  feedStatus(): { listening: boolean; delivered: number } {
    return { listening: this.feed.listening, delivered: this.feed.delivered };
  }

  // Collections

  async listCollections(): Promise<CollectionRecord[]> {
    const { rows } = await this.read<CollectionRow>(`${this.collectionSelect()} ORDER BY c.name`);
    return rows.map(toCollection);
  }

  async getCollection(name: string): Promise<CollectionRecord | undefined> {
    const { rows } = await this.read<CollectionRow>(`${this.collectionSelect()} WHERE c.name = $1`, [name]);
    return rows[0] && toCollection(rows[0]);
  }

  async putCollection(
    name: string,
    kind: CollectionKind,
    config: Record<string, unknown>,
    items: ItemInput[],
  ): Promise<{ created: boolean; collection: CollectionRecord }> {
    const configText = JSON.stringify(config);
    const keys = items.map((item) => item.key);
    const bodies = items.map((item) => JSON.stringify(item.body));
    const created = await this.write(async (tx) => {
      const existed = (await tx.query(`SELECT 1 FROM ${this.s}.collections WHERE name = $1`, [name])).rowCount! > 0;
      const seq = tx.log(name, "collection");
      if (existed) await tx.query(`DELETE FROM ${this.s}.items WHERE collection = $1`, [name]);
      await tx.query(
        `INSERT INTO ${this.s}.collections (name, kind, config, updated_at, version) VALUES ($1, $2, $3, now(), $4)
         ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, config = excluded.config,
         updated_at = excluded.updated_at, version = excluded.version`,
        [name, kind, configText, seq],
      );
      await this.insertItems(tx, name, keys, bodies, bodies.map((body) => etagOf(seq, body)));
      return !existed;
    });
    return { created, collection: (await this.getCollection(name))! };
  }

  async deleteCollection(name: string): Promise<boolean> {
    return this.write(async (tx) => {
      const found = await tx.query(`SELECT 1 FROM ${this.s}.collections WHERE name = $1`, [name]);
      if (found.rowCount === 0) return false;
      tx.log(name, "collection");
      await tx.query(`DELETE FROM ${this.s}.collections WHERE name = $1`, [name]);
      return true;
    });
  }

  // Items

  async listItems(collection: string): Promise<ItemRecord[]> {
    await this.requireCollection(collection);
    const { rows } = await this.read<ItemRow>(`SELECT * FROM ${this.s}.items WHERE collection = $1 ORDER BY key`, [collection]);
    return rows.map(toItem);
  }

  async getItem(collection: string, key: string): Promise<ItemRecord | undefined> {
    // One round trip: replicas re-read every touched key this way.
    const { rows } = await this.read<ItemRow & { known: string }>(
      `SELECT c.name AS known, i.* FROM ${this.s}.collections c LEFT JOIN ${this.s}.items i ON i.collection = c.name AND i.key = $2 WHERE c.name = $1`,
      [collection, key],
    );
    if (rows.length === 0) throw unknownCollection(collection);
    return rows[0].key === null ? undefined : toItem(rows[0]);
  }

  async putItem(collection: string, item: ItemInput, options: WriteOptions = {}): Promise<{ created: boolean; item: ItemRecord }> {
    const body = JSON.stringify(item.body);
    return this.write(async (tx) => {
      await this.requireCollection(collection, tx);
      const current = await this.itemRow(collection, item.key, tx);
      checkMatch(collection, item.key, current, options);
      const seq = tx.log(collection, "item", item.key);
      const { rows } = await tx.query<ItemRow>(
        `INSERT INTO ${this.s}.items (collection, key, body, etag, updated_at) VALUES ($1, $2, $3, $4, now())
         ON CONFLICT (collection, key) DO UPDATE SET body = excluded.body, etag = excluded.etag, updated_at = excluded.updated_at
         RETURNING *`,
        [collection, item.key, body, etagOf(seq, body)],
      );
      await this.touch(tx, collection, seq);
      return { created: !current, item: toItem(rows[0]) };
    });
  }

  async deleteItem(collection: string, key: string, options: WriteOptions = {}): Promise<boolean> {
    return this.write(async (tx) => {
      await this.requireCollection(collection, tx);
      const current = await this.itemRow(collection, key, tx);
      checkMatch(collection, key, current, options);
      if (!current) return false;
      const seq = tx.log(collection, "item", key);
      await tx.query(`DELETE FROM ${this.s}.items WHERE collection = $1 AND key = $2`, [collection, key]);
      await this.touch(tx, collection, seq);
      return true;
    });
  }

  async batch(collection: string, upsert: ItemInput[], remove: string[]): Promise<{ upserted: number; deleted: number }> {
    // A key upserted twice in one batch keeps its last body, as if the upserts ran one after the other.
    const last = new Map(upsert.map((item) => [item.key, JSON.stringify(item.body)]));
    return this.write(async (tx) => {
      await this.requireCollection(collection, tx);
      const keys = [...last.keys()];
      const bodies = [...last.values()];
      const etags = keys.map((key, i) => etagOf(tx.log(collection, "item", key), bodies[i]));
      await this.insertItems(tx, collection, keys, bodies, etags, true);
      const { rows } = await tx.query<{ key: string }>(
        `DELETE FROM ${this.s}.items WHERE collection = $1 AND key = ANY($2::text[]) RETURNING key`,
        [collection, [...new Set(remove)]],
      );
      // Log deletions in the order asked, so the log reads like the request.
      const gone = new Set(rows.map((row) => row.key));
      for (const key of new Set(remove)) if (gone.has(key)) tx.log(collection, "item", key);
      if (tx.changes.length > 0) await this.touch(tx, collection, tx.changes[tx.changes.length - 1].seq);
      return { upserted: upsert.length, deleted: gone.size };
    });
  }

  // Change feed

  async changesSince(after: number, limit = 1000, collection?: string): Promise<Change[]> {
    const { rows } = await this.read<{ seq: string; collection: string; scope: Change["scope"]; key: string | null }>(
      collection === undefined
        ? `SELECT seq, collection, scope, key FROM ${this.s}.changes WHERE seq > $1 ORDER BY seq LIMIT $2`
        : `SELECT seq, collection, scope, key FROM ${this.s}.changes WHERE seq > $1 AND collection = $3 ORDER BY seq LIMIT $2`,
      collection === undefined ? [after, limit] : [after, limit, collection],
    );
    return rows.map((row) => {
      const change: Change = { seq: Number(row.seq), collection: row.collection, scope: row.scope };
      if (row.key !== null) change.key = row.key;
      return change;
    });
  }

  async latestSeq(): Promise<number> {
    const { rows } = await this.read(`SELECT seq FROM ${this.s}.feed WHERE id = 1`);
    return Number(rows[0].seq);
  }

  onChange(listener: (changes: Change[]) => void): Unsubscribe {
    return this.feed.subscribe(listener);
  }

  async pruneChanges(upTo: number): Promise<number> {
    return this.withClient(async (client) => {
      const { rowCount } = await client.query(`DELETE FROM ${this.s}.changes WHERE seq <= $1`, [upTo]);
      await client.query(`UPDATE ${this.s}.feed SET pruned = greatest(pruned, $1) WHERE id = 1`, [upTo]);
      return rowCount ?? 0;
    });
  }

  // API keys

  async createKey(key: ApiKeyRecord & { hash: string }): Promise<void> {
    try {
      await this.read(
        `INSERT INTO ${this.s}.api_keys (id, hash, scope, collection, label, created_at, revoked_at, tools_allow, tools_deny) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [key.id, key.hash, key.scope, key.collection ?? null, key.label ?? null, key.createdAt, key.revokedAt ?? null, globsColumn(key.toolsAllow), globsColumn(key.toolsDeny)],
      );
    } catch (error) {
      if ((error as ToolsearchError).details?.pgCode === "23505") {
        throw new ToolsearchError("conflict", `an API key with id ${JSON.stringify(key.id)} (or the same secret) already exists`);
      }
      throw error;
    }
  }

  async keyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const { rows } = await this.read<KeyRow>(`SELECT * FROM ${this.s}.api_keys WHERE hash = $1 AND revoked_at IS NULL`, [hash]);
    return rows[0] && toKey(rows[0]);
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    const { rows } = await this.read<KeyRow>(`SELECT * FROM ${this.s}.api_keys ORDER BY created_at, id`);
    return rows.map(toKey);
  }

  async revokeKey(id: string): Promise<boolean> {
    const { rowCount } = await this.read(`UPDATE ${this.s}.api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, [
      new Date().toISOString(),
      id,
    ]);
    return (rowCount ?? 0) > 0;
  }

  // Settings

  async getSetting(key: string): Promise<unknown> {
    const { rows } = await this.read(`SELECT value FROM ${this.s}.settings WHERE key = $1`, [key]);
    return rows[0] === undefined ? undefined : JSON.parse(rows[0].value);
  }

  async setSetting(key: string, value: unknown): Promise<void> {
    const text = JSON.stringify(value);
    if (text === undefined) await this.read(`DELETE FROM ${this.s}.settings WHERE key = $1`, [key]);
    else {
      await this.read(`INSERT INTO ${this.s}.settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
        key,
        text,
      ]);
    }
  }

  // Vectors

  async getMany(provider: string, hashes: string[], dimensions: number): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    if (hashes.length === 0) return found;
    const { rows } = await this.read<{ hash: string; vector: Buffer }>(
      `SELECT hash, vector FROM ${this.s}.vectors WHERE provider = $1 AND hash = ANY($2::text[])`,
      [provider, [...new Set(hashes)]],
    );
    for (const row of rows) {
      // A vector of another size (a provider that changed its output under the same id) counts as a miss.
      if (row.vector.byteLength === dimensions * 4) found.set(row.hash, toVector(row.vector));
    }
    return found;
  }

  async putMany(provider: string, entries: Array<[hash: string, vector: Float32Array]>): Promise<void> {
    if (entries.length === 0) return;
    // One row per hash, in a fixed order: two replicas storing overlapping sets then lock rows in the same order.
    const unique = [...new Map(entries).entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    await this.read(
      `INSERT INTO ${this.s}.vectors (provider, hash, vector) SELECT $1, * FROM unnest($2::text[], $3::bytea[])
       ON CONFLICT (provider, hash) DO UPDATE SET vector = excluded.vector`,
      [provider, unique.map(([hash]) => hash), unique.map(([, v]) => Buffer.from(v.buffer, v.byteOffset, v.byteLength))],
    );
  }

  // Curation

  async getCuration(collection: string, kind: CurationKind): Promise<unknown> {
    const { rows } = await this.read(
      `SELECT c.name, u.body FROM ${this.s}.collections c LEFT JOIN ${this.s}.curation u ON u.collection = c.name AND u.kind = $2 WHERE c.name = $1`,
      [collection, kind],
    );
    if (rows.length === 0) throw unknownCollection(collection);
    return rows[0].body === null ? undefined : JSON.parse(rows[0].body);
  }

  async putCuration(collection: string, kind: CurationKind, value: unknown): Promise<void> {
    const text = value === undefined ? undefined : JSON.stringify(value);
    await this.write(async (tx) => {
      await this.requireCollection(collection, tx);
      if (text === undefined) await tx.query(`DELETE FROM ${this.s}.curation WHERE collection = $1 AND kind = $2`, [collection, kind]);
      else {
        await tx.query(
          `INSERT INTO ${this.s}.curation (collection, kind, body) VALUES ($1, $2, $3) ON CONFLICT (collection, kind) DO UPDATE SET body = excluded.body`,
          [collection, kind, text],
        );
      }
      tx.log(collection, "curation", kind);
    });
  }

  // Usage events

  async recordUsage(events: UsageEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.read(
      `INSERT INTO ${this.s}.usage_events (collection, session, kind, query, tools, outcome, at)
       SELECT t.c, t.s, t.k, t.q, t.tl, t.o, t.a
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[]) WITH ORDINALITY AS t(c, s, k, q, tl, o, a, n)
       WHERE left(t.c, 1) = ':' OR EXISTS (SELECT 1 FROM ${this.s}.collections WHERE name = t.c) ORDER BY t.n`,
      [
        events.map((e) => e.collection), events.map((e) => e.session), events.map((e) => e.kind), events.map((e) => e.query ?? null),
        events.map((e) => JSON.stringify(e.tools)), events.map((e) => e.outcome ?? null), events.map((e) => e.at),
      ],
    );
  }

  async listUsage(collection: string, limit = 100_000): Promise<UsageEvent[]> {
    const { rows } = await this.read<UsageRow>(
      `SELECT * FROM (SELECT * FROM ${this.s}.usage_events WHERE collection = $1 ORDER BY id DESC LIMIT $2) AS recent ORDER BY id`,
      [collection, limit],
    );
    return rows.map(toUsage);
  }

  async pruneUsage(before: string, keep: number): Promise<number> {
    const old = await this.read(`DELETE FROM ${this.s}.usage_events WHERE at < $1`, [before]);
    const excess = await this.read(
      `DELETE FROM ${this.s}.usage_events WHERE id IN (
         SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY collection ORDER BY id DESC) AS n FROM ${this.s}.usage_events) AS ranked
         WHERE n > $1)`,
      [keep],
    );
    return (old.rowCount ?? 0) + (excess.rowCount ?? 0);
  }

  // Index snapshots

  async getSnapshot(collection: string): Promise<SnapshotRecord | undefined> {
    const { rows } = await this.read<{ version: string; encoding: string; bytes: Buffer }>(
      `SELECT version, encoding, bytes FROM ${this.s}.snapshots WHERE collection = $1 ORDER BY version DESC LIMIT 1`,
      [collection],
    );
    return rows[0] && { collection, version: Number(rows[0].version), encoding: rows[0].encoding, bytes: rows[0].bytes };
  }

  async snapshotVersion(collection: string): Promise<number | undefined> {
    const { rows } = await this.read<{ version: string | null }>(`SELECT max(version) AS version FROM ${this.s}.snapshots WHERE collection = $1`, [collection]);
    return rows[0]?.version == null ? undefined : Number(rows[0].version);
  }

  async putSnapshot(snapshot: SnapshotRecord): Promise<boolean> {
    // One statement: the primary key settles two replicas saving the same version (one inserts, one does nothing).
    const { rows } = await this.read<{ n: number }>(
      `WITH ins AS (
         INSERT INTO ${this.s}.snapshots (collection, version, encoding, bytes, created_at)
         SELECT $1, $2, $3, $4, now()
         WHERE NOT EXISTS (SELECT 1 FROM ${this.s}.snapshots WHERE collection = $1 AND version >= $2)
         ON CONFLICT (collection, version) DO NOTHING RETURNING 1),
       del AS (DELETE FROM ${this.s}.snapshots WHERE collection = $1 AND version < $2 AND EXISTS (SELECT 1 FROM ins))
       SELECT count(*)::int AS n FROM ins`,
      [snapshot.collection, snapshot.version, snapshot.encoding, snapshot.bytes],
    );
    return rows[0].n > 0;
  }

  async deleteSnapshots(collection: string): Promise<number> {
    const result = await this.read(`DELETE FROM ${this.s}.snapshots WHERE collection = $1`, [collection]);
    return result.rowCount ?? 0;
  }

  // MCP manifests

  async getManifest(owner: string, server: string): Promise<ManifestRecord | undefined> {
    const { rows } = await this.read(`SELECT * FROM ${this.s}.manifests WHERE owner = $1 AND server = $2`, [owner, server]);
    const row = rows[0];
    return row && { owner: row.owner, server: row.server, configHash: row.config_hash, tools: JSON.parse(row.tools), ...(row.offer ? { offer: JSON.parse(row.offer) } : {}), updatedAt: row.updated_at.toISOString() };
  }

  async putManifest(manifest: Omit<ManifestRecord, "updatedAt">): Promise<void> {
    await this.read(
      `INSERT INTO ${this.s}.manifests (owner, server, config_hash, tools, offer, updated_at) VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (owner, server) DO UPDATE SET config_hash = excluded.config_hash, tools = excluded.tools, offer = excluded.offer,
       updated_at = excluded.updated_at`,
      [manifest.owner, manifest.server, manifest.configHash, JSON.stringify(manifest.tools), manifest.offer ? JSON.stringify(manifest.offer) : null],
    );
  }

  async deleteManifest(owner: string, server: string): Promise<void> {
    await this.read(`DELETE FROM ${this.s}.manifests WHERE owner = $1 AND server = $2`, [owner, server]);
  }

  // Audit log

  async appendAudit(entries: AuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    // One multi-row INSERT: a single statement is atomic without a transaction.
    const values = entries.flatMap(auditColumns);
    const rows = entries.map((_, r) => `(${Array.from({ length: AUDIT_COLUMNS }, (_, c) => `$${r * AUDIT_COLUMNS + c + 1}`).join(", ")})`);
    await this.read(`INSERT INTO ${this.s}.audit (at, who, action, collection, target, outcome, duration_ms, argument_bytes, arguments, screen, request_id) VALUES ${rows.join(", ")}`, values);
  }

  async listAudit(query: AuditQuery = {}): Promise<AuditRecord[]> {
    let n = 0;
    const { where, values } = auditWhere(query, () => `$${++n}`);
    const { rows } = await this.read<AuditRow>(`SELECT * FROM ${this.s}.audit ${where} ORDER BY id DESC LIMIT $${++n}`, [...values, query.limit ?? 100]);
    return rows.map(toAudit);
  }

  async pruneAudit(before: string): Promise<number> {
    const { rowCount } = await this.read(`DELETE FROM ${this.s}.audit WHERE at < $1`, [before]);
    return rowCount ?? 0;
  }

  // Secrets

  async getSecret(owner: string, name: string): Promise<string | undefined> {
    const { rows } = await this.read(`SELECT sealed FROM ${this.s}.secrets WHERE owner = $1 AND name = $2`, [owner, name]);
    return rows[0]?.sealed;
  }

  async putSecret(owner: string, name: string, sealed: string): Promise<void> {
    await this.read(
      `INSERT INTO ${this.s}.secrets (owner, name, sealed, updated_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (owner, name) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at`,
      [owner, name, sealed],
    );
  }

  async deleteSecrets(owner: string, name?: string): Promise<void> {
    if (name === undefined) await this.read(`DELETE FROM ${this.s}.secrets WHERE owner = $1`, [owner]);
    else await this.read(`DELETE FROM ${this.s}.secrets WHERE owner = $1 AND name = $2`, [owner, name]);
  }

  // Pinned tool definitions

  async listPins(owner: string): Promise<PinRecord[]> {
    const { rows } = await this.read(`SELECT * FROM ${this.s}.tool_pins WHERE owner = $1 ORDER BY server, tool`, [owner]);
    return rows.map((row: PinRow & { updated_at: Date }) => pinFromRow(row, row.updated_at.toISOString()));
  }

  async putPins(pins: Omit<PinRecord, "updatedAt">[]): Promise<void> {
    if (!pins.length) return;
    // One statement, so the pins land together or not at all.
    await this.read(
      `INSERT INTO ${this.s}.tool_pins (owner, server, tool, state, updated_at)
       SELECT o, s, t, st, now() FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(o, s, t, st)
       ON CONFLICT (owner, server, tool) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
      [pins.map((p) => p.owner), pins.map((p) => p.server), pins.map((p) => p.tool), pins.map(pinState)],
    );
  }

  async claimPins(pins: Omit<PinRecord, "updatedAt">[]): Promise<PinRecord[]> {
    if (!pins.length) return [];
    const keys = [pins.map((p) => p.owner), pins.map((p) => p.server), pins.map((p) => p.tool)];
    // A concurrent claim of the same key waits on the row lock, then re-checks the WHERE against the winner's row.
    const { rows: won } = await this.read(
      `INSERT INTO ${this.s}.tool_pins AS p (owner, server, tool, state, updated_at)
       SELECT o, s, t, st, now() FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(o, s, t, st)
       ON CONFLICT (owner, server, tool) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at
       WHERE (p.state::jsonb -> 'pinned') IS NULL
       RETURNING owner, server, tool`,
      [...keys, pins.map(pinState)],
    );
    const claimed = new Set(won.map((row: PinRow) => `${row.owner}\u0000${row.server}\u0000${row.tool}`));
    const lost = pins.filter((p) => !claimed.has(`${p.owner}\u0000${p.server}\u0000${p.tool}`));
    if (!lost.length) return [];
    const { rows } = await this.read(
      `SELECT p.* FROM ${this.s}.tool_pins p JOIN unnest($1::text[], $2::text[], $3::text[]) AS u(o, s, t)
       ON p.owner = u.o AND p.server = u.s AND p.tool = u.t`,
      [lost.map((p) => p.owner), lost.map((p) => p.server), lost.map((p) => p.tool)],
    );
    return rows.map((row: PinRow & { updated_at: Date }) => pinFromRow(row, row.updated_at.toISOString()));
  }

  async deletePins(owner: string): Promise<void> {
    await this.read(`DELETE FROM ${this.s}.tool_pins WHERE owner = $1`, [owner]);
  }

  // Internals

  /**
   * Runs `body` in one transaction that logs changes: the feed row is locked first (see the module comment), the
   * log rows, the new high mark and the NOTIFY go in the same transaction. Nothing is applied unless all of it is.
   */
  private async write<T>(body: (tx: Tx) => Promise<T>): Promise<T> {
    const result = await this.withClient(async (client) => {
      await client.query("BEGIN");
      try {
        const tx = new Tx(client, this.s);
        await tx.lockFeed();
        const out = await body(tx);
        if (tx.changes.length > 0) await this.appendLog(tx);
        await client.query("COMMIT");
        return { out, logged: tx.changes.length > 0 };
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    });
    // Our own commit need not wait for the notification's round trip.
    if (result.logged) this.feed.poke();
    return result.out;
  }

  private async appendLog(tx: Tx): Promise<void> {
    const { changes } = tx;
    const last = changes[changes.length - 1].seq;
    await tx.query(`INSERT INTO ${this.s}.changes (seq, collection, scope, key) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[])`, [
      changes.map((c) => c.seq),
      changes.map((c) => c.collection),
      changes.map((c) => c.scope),
      changes.map((c) => c.key ?? null),
    ]);
    await tx.query(`UPDATE ${this.s}.feed SET seq = $1 WHERE id = 1`, [last]);
    await tx.query("SELECT pg_notify($1, $2)", [this.channel, String(last)]);
  }

  /** Inserts many items in one statement (`upsert` replaces existing keys). */
  private async insertItems(tx: Tx, collection: string, keys: string[], bodies: string[], etags: string[], upsert = false): Promise<void> {
    if (keys.length === 0) return;
    const onConflict = upsert ? "ON CONFLICT (collection, key) DO UPDATE SET body = excluded.body, etag = excluded.etag, updated_at = excluded.updated_at" : "";
    await tx.query(
      `INSERT INTO ${this.s}.items (collection, key, body, etag, updated_at)
       SELECT $1, k, b, e, now() FROM unnest($2::text[], $3::text[], $4::text[]) AS t(k, b, e) ${onConflict}`,
      [collection, keys, bodies, etags],
    );
  }

  private async touch(tx: Tx, collection: string, seq: number): Promise<void> {
    await tx.query(`UPDATE ${this.s}.collections SET updated_at = now(), version = $1 WHERE name = $2`, [seq, collection]);
  }

  private async itemRow(collection: string, key: string, tx?: Tx): Promise<ItemRow | undefined> {
    const text = `SELECT * FROM ${this.s}.items WHERE collection = $1 AND key = $2`;
    const { rows } = tx ? await tx.query<ItemRow>(text, [collection, key]) : await this.read<ItemRow>(text, [collection, key]);
    return rows[0];
  }

  private async requireCollection(name: string, tx?: Tx): Promise<void> {
    const text = `SELECT 1 FROM ${this.s}.collections WHERE name = $1`;
    const { rowCount } = tx ? await tx.query(text, [name]) : await this.read(text, [name]);
    if (!rowCount) throw unknownCollection(name);
  }

  private collectionSelect(): string {
    return `SELECT c.*, (SELECT count(*) FROM ${this.s}.items i WHERE i.collection = c.name) AS size FROM ${this.s}.collections c`;
  }

  /** One statement on any pooled connection; database failures become `store_unavailable`. */
  private async read<R extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, values);
    } catch (error) {
      throw unavailable(this.location, error);
    }
  }

  /** Borrows a connection for several statements; a broken one is destroyed rather than returned to the pool. */
  private async withClient<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw unavailable(this.location, error);
    }
    let broken = false;
    try {
      return await body(client);
    } catch (error) {
      if (error instanceof ToolsearchError) throw error;
      broken = true;
      throw unavailable(this.location, error);
    } finally {
      client.release(broken);
    }
  }
}

/**
 * Delivers the change log to listeners in `seq` order, each change once, from one LISTEN connection that reconnects
 * with backoff. Reads are serialized: a poke during a read schedules one more read, never a parallel one.
 */
class ChangeFeed {
  listening = false;
  delivered = -1;
  private readonly listeners = new Set<(changes: Change[]) => void>();
  private client: pg.Client | undefined;
  private reading = false;
  private again = false;
  private stopped = false;
  private started = false;
  private retryMs = 100;
  private timer: NodeJS.Timeout | undefined;
  private poll: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      connect: () => pg.Client;
      channel: string;
      read: (after: number) => Promise<Change[]>;
      pollMs: number;
    },
  ) {}

  /** Sets where delivery starts (the high mark at `migrate()`); the connection opens on the first subscriber. */
  startFrom(seq: number): void {
    if (this.delivered < 0) this.delivered = seq;
    if (this.listeners.size > 0) this.start();
  }

  subscribe(listener: (changes: Change[]) => void): Unsubscribe {
    this.listeners.add(listener);
    if (this.delivered >= 0) this.start();
    return () => this.listeners.delete(listener);
  }

  /** Reads the log now (after a local commit, a notification or a reconnect). */
  poke(): void {
    if (!this.started || this.stopped) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    void this.drain();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.poll);
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    if (client) await client.end().catch(() => {});
  }

  private start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.poll = setInterval(() => this.poke(), this.options.pollMs);
    this.poll.unref();
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = this.options.connect();
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    client.on("notification", () => this.poke());
    try {
      await client.connect();
      await client.query(`LISTEN "${this.options.channel}"`);
    } catch {
      this.lost(client);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.listening = true;
    this.retryMs = 100;
    // Whatever committed while we were not listening is in the log.
    this.poke();
  }

  private lost(client: pg.Client): void {
    if (this.client !== undefined && this.client !== client) return;
    if (this.stopped || this.timer) return;
    this.client = undefined;
    this.listening = false;
    client.end().catch(() => {});
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect();
    }, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, 5000);
  }

  private async drain(): Promise<void> {
    this.reading = true;
    try {
      do {
        this.again = false;
        for (;;) {
          const changes = await this.options.read(this.delivered);
          if (changes.length === 0 || this.stopped) break;
          this.delivered = changes[changes.length - 1].seq;
          this.emit(changes);
          if (changes.length < 1000) break;
        }
      } while (this.again && !this.stopped);
    } catch {
      // The database is away: the reconnect or the next poll reads again from `delivered`.
    } finally {
      this.reading = false;
    }
  }

  private emit(changes: Change[]): void {
    for (const listener of this.listeners) {
      try {
        listener(changes);
      } catch {
        // A listener's failure is its own to report; the others still get the changes.
      }
    }
  }
}

/** The URL without its password, for messages and `location`. */
export function hidePassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://(unparsable URL)";
  }
}

function unavailable(location: string, error: unknown): ToolsearchError {
  if (error instanceof ToolsearchError) return error;
  const reason = error instanceof Error ? error.message || (error as NodeJS.ErrnoException).code || error.name : String(error);
  const pgCode = (error as { code?: unknown }).code;
  return new ToolsearchError("store_unavailable", `store ${location}: ${reason}; nothing was changed`, {
    details: typeof pgCode === "string" ? { pgCode } : {},
  });
}

function toCollection(row: CollectionRow): CollectionRecord {
  return {
    name: row.name,
    kind: row.kind,
    config: JSON.parse(row.config),
    size: Number(row.size),
    updatedAt: row.updated_at.toISOString(),
    version: Number(row.version),
  };
}

function toItem(row: ItemRow): ItemRecord {
  return { collection: row.collection, key: row.key, body: JSON.parse(row.body), etag: row.etag, updatedAt: row.updated_at.toISOString() };
}

