/**
 * The embedded store: one SQLite file (better-sqlite3) in WAL mode. The default store of `toolsearch serve`.
 *
 * Durability: `synchronous = FULL` with WAL makes every commit fsync the log before the method resolves, so an
 * acknowledged write survives a process crash *and* an operating-system crash or power cut. (`NORMAL` would survive
 * `kill -9` too, but may drop the last commits on power loss; a service that answers 2xx promises more than that.)
 *
 * Several processes may open one file (the server and `toolsearch keys`): WAL lets readers run beside the writer and
 * `busy_timeout` makes a writer wait for the lock instead of failing. `onChange` announces this process's commits at
 * once, and another process's (`toolsearch mcp review --collection`, a second `serve`) within `watchMs`: while someone
 * listens, the store reads `PRAGMA data_version` (which moves only when another connection commits) and then the log.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { ToolsearchError } from "../errors.js";
import { type AuditRow, auditColumns, auditWhere, checkMatch, etagOf, globsColumn, type KeyRow, toAudit, newId, pinFromRow, type PinRow, pinState, toKey, toVector, unknownCollection } from "./records.js";
import type {
  ApiKeyRecord,
  AuditEntry,
  AuditQuery,
  AuditRecord,
  Change,
  CollectionKind,
  CollectionRecord,
  CurationKind,
  ItemInput,
  ItemRecord,
  ManifestRecord,
  SnapshotRecord,
  PinRecord,
  Scope,
  Store,
  Unsubscribe,
  UsageEvent,
  WriteOptions,
} from "./types.js";
import { toUsage, type UsageRow } from "./usage-rows.js";

/** Marks our files ("TSS1"), so that a foreign SQLite database is never written into. */
const APPLICATION_ID = 0x54535331;

/** Schema steps, applied in order; `user_version` records how many ran. Append, never edit a shipped step. */
const MIGRATIONS: string[] = [
  `CREATE TABLE collections (
     name TEXT PRIMARY KEY, kind TEXT NOT NULL, config TEXT NOT NULL,
     updated_at TEXT NOT NULL, version INTEGER NOT NULL);
   CREATE TABLE items (
     collection TEXT NOT NULL REFERENCES collections(name) ON DELETE CASCADE,
     key TEXT NOT NULL, body TEXT NOT NULL, etag TEXT NOT NULL, updated_at TEXT NOT NULL,
     PRIMARY KEY (collection, key)) WITHOUT ROWID;
   CREATE TABLE changes (
     seq INTEGER PRIMARY KEY AUTOINCREMENT, collection TEXT NOT NULL, scope TEXT NOT NULL, key TEXT);
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, scope TEXT NOT NULL, collection TEXT, label TEXT,
     created_at TEXT NOT NULL, revoked_at TEXT);
   CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
   CREATE TABLE vectors (
     provider TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (provider, hash)) WITHOUT ROWID;
   CREATE TABLE manifests (
     owner TEXT NOT NULL, server TEXT NOT NULL, config_hash TEXT NOT NULL, tools TEXT NOT NULL,
     updated_at TEXT NOT NULL, PRIMARY KEY (owner, server)) WITHOUT ROWID;`,
  // Resources, templates and prompts of each manifest's server (SPEC §14), JSON; NULL for older manifests.
  `ALTER TABLE manifests ADD COLUMN offer TEXT;`,
  // Tool visibility per key (SPEC §16): JSON arrays of name globs, NULL for none.
  `ALTER TABLE api_keys ADD COLUMN tools_allow TEXT;
   ALTER TABLE api_keys ADD COLUMN tools_deny TEXT;`,
  // The audit log (SPEC §16): who did what, when, with what outcome.
  `CREATE TABLE audit (
     id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, who TEXT NOT NULL, action TEXT NOT NULL,
     collection TEXT NOT NULL, target TEXT, outcome TEXT NOT NULL, duration_ms REAL NOT NULL,
     argument_bytes INTEGER, arguments TEXT);
   CREATE INDEX audit_at ON audit (at);`,
  // Curation (synonyms, pinned rules) per collection and usage events (SPEC §17).
  `CREATE TABLE curation (
     collection TEXT NOT NULL REFERENCES collections(name) ON DELETE CASCADE,
     kind TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (collection, kind)) WITHOUT ROWID;
   CREATE TABLE usage_events (
     id INTEGER PRIMARY KEY AUTOINCREMENT, collection TEXT NOT NULL, session TEXT NOT NULL, kind TEXT NOT NULL,
     query TEXT, tools TEXT NOT NULL, outcome TEXT, at TEXT NOT NULL);
   CREATE INDEX usage_events_by_collection ON usage_events (collection, id);`,
  // Secrets (OAuth tokens, client secrets), sealed with AES-256-GCM (SPEC §15).
  `CREATE TABLE secrets (
     owner TEXT NOT NULL, name TEXT NOT NULL, sealed TEXT NOT NULL, updated_at TEXT NOT NULL,
     PRIMARY KEY (owner, name)) WITHOUT ROWID;`,
  // Index snapshots, binary, one row per collection version (SPEC §9).
  `CREATE TABLE snapshots (
     collection TEXT NOT NULL, version INTEGER NOT NULL, encoding TEXT NOT NULL, bytes BLOB NOT NULL,
     created_at TEXT NOT NULL, PRIMARY KEY (collection, version));`,
  // Pinned upstream tool definitions and what waits for review (SPEC §16).
  `CREATE TABLE tool_pins (
     owner TEXT NOT NULL, server TEXT NOT NULL, tool TEXT NOT NULL, state TEXT NOT NULL, updated_at TEXT NOT NULL,
     PRIMARY KEY (owner, server, tool)) WITHOUT ROWID;`,
  // Counting a collection's items (its size, read for every collection at start) from this small index instead of
  // scanning the items' bodies: 1,000 collections of 350k items list in ~50 ms instead of ~800 ms, and ~100 ms less
  // per 100k passages at each start. PostgreSQL counts from its primary key.
  `CREATE INDEX items_by_collection ON items (collection);`,
  // What result screening found in a call's result (SPEC §16), JSON; NULL when nothing was flagged.
  `ALTER TABLE audit ADD COLUMN screen TEXT;`,
  // The request id of each audit entry (SPEC §18), to find a call's log lines; NULL for older entries.
  `ALTER TABLE audit ADD COLUMN request_id TEXT;`,
];

/** Most changes one look for other processes' commits announces. */
const WATCH_PAGE = 1000;

/** Options of a `SqliteStore`. */
export interface SqliteStoreOptions {
  /** How long a write waits for another process's lock before `store_unavailable` (default 5000 ms). */
  busyTimeoutMs?: number;
  /** How often `onChange` listeners are told of other processes' commits (default 1000 ms; 0 = never). */
  watchMs?: number;
}

interface CollectionRow {
  name: string;
  kind: CollectionKind;
  config: string;
  updated_at: string;
  version: number;
  size: number;
}

interface ItemRow {
  collection: string;
  key: string;
  body: string;
  etag: string;
  updated_at: string;
}

/**
 * The embedded store.
 *
 * @example
 * const store = new SqliteStore("/var/lib/toolsearch/store.sqlite");
 * await store.migrate();
 * await store.putCollection("crm", "tools", {}, [{ key: "get_customer", body: tool }]);
 */
export class SqliteStore implements Store {
  readonly kind = "sqlite";
  readonly location: string;
  private readonly db: Database.Database;
  private readonly listeners = new Set<(changes: Change[]) => void>();
  private readonly statements = new Map<string, Database.Statement>();
  /** Writes waiting for the next group commit. */
  private readonly queue: Array<{ body: () => { result: unknown; changes: Change[] }; resolve: (value: unknown) => void; reject: (error: unknown) => void }> = [];
  private readonly watchMs: number;
  /** While listeners exist: the timer looking for other processes' commits, and how far it has announced. */
  private watch?: { timer: NodeJS.Timeout; dataVersion: number; seq: number };

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.location = path;
    this.watchMs = path === ":memory:" ? 0 : (options.watchMs ?? 1000);
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    try {
      this.db = new Database(path);
      this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
      if (path !== ":memory:") this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = FULL");
      this.db.pragma("foreign_keys = ON");
      // better-sqlite3 builds SQLite with a 16 MB page cache per connection (SQLITE_DEFAULT_CACHE_SIZE=-16000); a
      // long-running gateway fills it with usage-event pages it never reads again (issue 35's soak: 16.9 MB of its RSS).
      // SQLite's own default, 2 MB, keeps the hot pages; the OS page cache holds the rest of the file.
      this.db.pragma("cache_size = -2000");
    } catch (error) {
      throw unavailable(path, error);
    }
  }

  async migrate(): Promise<void> {
    this.guard(() => {
      // IMMEDIATE takes the write lock first, so two processes starting at once migrate one after the other.
      this.db.transaction(() => {
        const tables = this.sql("SELECT count(*) FROM sqlite_master").pluck().get() as number;
        const applicationId = this.db.pragma("application_id", { simple: true }) as number;
        if (tables > 0 && applicationId !== APPLICATION_ID) {
          throw new ToolsearchError("store_unavailable", `${this.location} holds another application's database, not a toolsearch store; nothing was changed`);
        }
        const version = this.db.pragma("user_version", { simple: true }) as number;
        if (version > MIGRATIONS.length) {
          throw new ToolsearchError("store_unavailable", `${this.location} has schema version ${version}, newer than this toolsearch understands (${MIGRATIONS.length}); upgrade toolsearch`);
        }
        for (let step = version; step < MIGRATIONS.length; step++) this.db.exec(MIGRATIONS[step]);
        this.db.pragma(`application_id = ${APPLICATION_ID}`);
        this.db.pragma(`user_version = ${MIGRATIONS.length}`);
      }).immediate();
    });
  }

  async close(): Promise<void> {
    // Writes already queued are committed (and answered) before the file closes.
    if (this.queue.length > 0 && this.db.open) this.commitQueued();
    this.stopWatching();
    if (this.db.open) this.db.close();
    this.listeners.clear();
  }

  // Collections

  async listCollections(): Promise<CollectionRecord[]> {
    const rows = this.guard(() => this.sql(`${COLLECTION_SELECT} ORDER BY c.name`).all() as CollectionRow[]);
    return rows.map(toCollection);
  }

  async getCollection(name: string): Promise<CollectionRecord | undefined> {
    const row = this.guard(() => this.collectionRow(name));
    return row && toCollection(row);
  }

  async putCollection(
    name: string,
    kind: CollectionKind,
    config: Record<string, unknown>,
    items: ItemInput[],
  ): Promise<{ created: boolean; collection: CollectionRecord }> {
    const configText = JSON.stringify(config);
    const bodies = items.map((item) => [item.key, JSON.stringify(item.body)] as const);
    const created = await this.write(() => {
      const existed = this.collectionRow(name) !== undefined;
      const seq = this.logChange(name, "collection");
      const now = new Date().toISOString();
      if (existed) this.sql("DELETE FROM items WHERE collection = ?").run(name);
      this.db
        .prepare(`INSERT INTO collections (name, kind, config, updated_at, version) VALUES (?, ?, ?, ?, ?)
                  ON CONFLICT(name) DO UPDATE SET kind = excluded.kind, config = excluded.config,
                  updated_at = excluded.updated_at, version = excluded.version`)
        .run(name, kind, configText, now, seq);
      const insert = this.sql("INSERT INTO items (collection, key, body, etag, updated_at) VALUES (?, ?, ?, ?, ?)");
      for (const [key, body] of bodies) insert.run(name, key, body, etagOf(seq, body), now);
      return { result: !existed, changes: [{ seq, collection: name, scope: "collection" as const }] };
    });
    return { created, collection: (await this.getCollection(name))! };
  }

  async deleteCollection(name: string): Promise<boolean> {
    return this.write(() => {
      if (!this.collectionRow(name)) return { result: false, changes: [] };
      const seq = this.logChange(name, "collection");
      this.sql("DELETE FROM collections WHERE name = ?").run(name);
      return { result: true, changes: [{ seq, collection: name, scope: "collection" as const }] };
    });
  }

  // Items

  async listItems(collection: string): Promise<ItemRecord[]> {
    return this.guard(() => {
      this.requireCollection(collection);
      const rows = this.sql("SELECT * FROM items WHERE collection = ? ORDER BY key").all(collection) as ItemRow[];
      return rows.map(toItem);
    });
  }

  async getItem(collection: string, key: string): Promise<ItemRecord | undefined> {
    return this.guard(() => {
      this.requireCollection(collection);
      const row = this.itemRow(collection, key);
      return row && toItem(row);
    });
  }

  async putItem(collection: string, item: ItemInput, options: WriteOptions = {}): Promise<{ created: boolean; item: ItemRecord }> {
    const body = JSON.stringify(item.body);
    return this.write(() => {
      this.requireCollection(collection);
      const current = this.itemRow(collection, item.key);
      checkMatch(collection, item.key, current, options);
      const seq = this.logChange(collection, "item", item.key);
      const now = new Date().toISOString();
      const row: ItemRow = { collection, key: item.key, body, etag: etagOf(seq, body), updated_at: now };
      this.upsertRow(row);
      this.touch(collection, seq, now);
      return { result: { created: !current, item: toItem(row) }, changes: [{ seq, collection, scope: "item" as const, key: item.key }] };
    });
  }

  async deleteItem(collection: string, key: string, options: WriteOptions = {}): Promise<boolean> {
    return this.write(() => {
      this.requireCollection(collection);
      const current = this.itemRow(collection, key);
      checkMatch(collection, key, current, options);
      if (!current) return { result: false, changes: [] };
      const seq = this.logChange(collection, "item", key);
      this.sql("DELETE FROM items WHERE collection = ? AND key = ?").run(collection, key);
      this.touch(collection, seq, new Date().toISOString());
      return { result: true, changes: [{ seq, collection, scope: "item" as const, key }] };
    });
  }

  async batch(collection: string, upsert: ItemInput[], remove: string[]): Promise<{ upserted: number; deleted: number }> {
    const bodies = upsert.map((item) => [item.key, JSON.stringify(item.body)] as const);
    return this.write(() => {
      this.requireCollection(collection);
      const now = new Date().toISOString();
      const changes: Change[] = [];
      let last = 0;
      for (const [key, body] of bodies) {
        last = this.logChange(collection, "item", key);
        this.upsertRow({ collection, key, body, etag: etagOf(last, body), updated_at: now });
        changes.push({ seq: last, collection, scope: "item", key });
      }
      const drop = this.sql("DELETE FROM items WHERE collection = ? AND key = ?");
      let deleted = 0;
      for (const key of new Set(remove)) {
        if (!this.itemRow(collection, key)) continue;
        last = this.logChange(collection, "item", key);
        drop.run(collection, key);
        changes.push({ seq: last, collection, scope: "item", key });
        deleted++;
      }
      if (last > 0) this.touch(collection, last, now);
      return { result: { upserted: bodies.length, deleted }, changes };
    });
  }

  // Change feed

  async changesSince(after: number, limit = 1000, collection?: string): Promise<Change[]> {
    return this.guard(() => this.readChanges(after, limit, collection));
  }

  private readChanges(after: number, limit: number, collection?: string): Change[] {
    const rows = (collection === undefined
      ? this.sql("SELECT seq, collection, scope, key FROM changes WHERE seq > ? ORDER BY seq LIMIT ?").all(after, limit)
      : this.sql("SELECT seq, collection, scope, key FROM changes WHERE seq > ? AND collection = ? ORDER BY seq LIMIT ?").all(after, collection, limit)) as Array<Change & { key: string | null }>;
    return rows.map((row) => (row.key === null ? { seq: row.seq, collection: row.collection, scope: row.scope } : row));
  }

  async latestSeq(): Promise<number> {
    return this.guard(() => this.lastSeq());
  }

  private lastSeq(): number {
    // sqlite_sequence keeps the highest seq ever issued, also after the log was pruned.
    return (this.sql("SELECT seq FROM sqlite_sequence WHERE name = 'changes'").pluck().get() as number | undefined) ?? 0;
  }

  onChange(listener: (changes: Change[]) => void): Unsubscribe {
    this.listeners.add(listener);
    if (!this.watch && this.watchMs > 0) this.startWatching();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopWatching();
    };
  }

  /**
   * Announces the commits of other processes on this file. `data_version` is one cheap read that changes only when
   * another connection commits, so an idle store reads no log. The log is read from where this watch last read it;
   * a change of this process may then be announced twice, which readers allow (applying a change re-reads state).
   */
  private startWatching(): void {
    const dataVersion = () => this.db.pragma("data_version", { simple: true }) as number;
    let watch: NonNullable<SqliteStore["watch"]>;
    const tick = () => {
      try {
        const now = dataVersion();
        if (now === watch.dataVersion) return;
        const changes = this.readChanges(watch.seq, WATCH_PAGE);
        // Unless the page was full: the next tick then reads on.
        if (changes.length < WATCH_PAGE) watch.dataVersion = now;
        if (changes.length === 0) return;
        watch.seq = changes[changes.length - 1].seq;
        this.announce(changes);
      } catch {
        // Busy: the next tick tries again.
      }
    };
    let start: { dataVersion: number; seq: number };
    try {
      start = { dataVersion: dataVersion(), seq: this.lastSeq() };
    } catch {
      return; // A store that cannot be read is not watched; `changesSince` reports the failure to its callers.
    }
    watch = { ...start, timer: setInterval(tick, this.watchMs) };
    watch.timer.unref();
    this.watch = watch;
  }

  private stopWatching(): void {
    if (this.watch) clearInterval(this.watch.timer);
    this.watch = undefined;
  }

  async pruneChanges(upTo: number): Promise<number> {
    return this.write(() => ({ result: this.sql("DELETE FROM changes WHERE seq <= ?").run(upTo).changes, changes: [] }));
  }

  // API keys

  async createKey(key: ApiKeyRecord & { hash: string }): Promise<void> {
    await this.write(() => {
      const clash = this.sql("SELECT 1 FROM api_keys WHERE id = ? OR hash = ?").get(key.id, key.hash);
      if (clash) throw new ToolsearchError("conflict", `an API key with id ${JSON.stringify(key.id)} (or the same secret) already exists`);
      this.db
        .prepare("INSERT INTO api_keys (id, hash, scope, collection, label, created_at, revoked_at, tools_allow, tools_deny) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .run(key.id, key.hash, key.scope, key.collection ?? null, key.label ?? null, key.createdAt, key.revokedAt ?? null, globsColumn(key.toolsAllow), globsColumn(key.toolsDeny));
      return { result: undefined, changes: [] };
    });
  }

  async keyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = this.guard(() => this.sql("SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL").get(hash) as KeyRow | undefined);
    return row && toKey(row);
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    const rows = this.guard(() => this.sql("SELECT * FROM api_keys ORDER BY created_at, id").all() as KeyRow[]);
    return rows.map(toKey);
  }

  async revokeKey(id: string): Promise<boolean> {
    return this.write(() => {
      const run = this.sql("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(new Date().toISOString(), id);
      return { result: run.changes > 0, changes: [] };
    });
  }

  // Settings

  async getSetting(key: string): Promise<unknown> {
    const text = this.guard(() => this.sql("SELECT value FROM settings WHERE key = ?").pluck().get(key) as string | undefined);
    return text === undefined ? undefined : JSON.parse(text);
  }

  async setSetting(key: string, value: unknown): Promise<void> {
    const text = JSON.stringify(value);
    await this.write(() => {
      if (text === undefined) this.sql("DELETE FROM settings WHERE key = ?").run(key);
      else this.sql("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, text);
      return { result: undefined, changes: [] };
    });
  }

  // Curation

  async getCuration(collection: string, kind: CurationKind): Promise<unknown> {
    return this.guard(() => {
      this.requireCollection(collection);
      const text = this.sql("SELECT body FROM curation WHERE collection = ? AND kind = ?").pluck().get(collection, kind) as string | undefined;
      return text === undefined ? undefined : JSON.parse(text);
    });
  }

  async putCuration(collection: string, kind: CurationKind, value: unknown): Promise<void> {
    const text = value === undefined ? undefined : JSON.stringify(value);
    await this.write(() => {
      this.requireCollection(collection);
      if (text === undefined) this.sql("DELETE FROM curation WHERE collection = ? AND kind = ?").run(collection, kind);
      else this.sql("INSERT INTO curation (collection, kind, body) VALUES (?, ?, ?) ON CONFLICT(collection, kind) DO UPDATE SET body = excluded.body").run(collection, kind, text);
      const seq = this.logChange(collection, "curation", kind);
      return { result: undefined, changes: [{ seq, collection, scope: "curation" as const, key: kind }] };
    });
  }

  // Usage events

  async recordUsage(events: UsageEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.write(() => {
      // A collection's events are kept while it exists; a name no collection can have (`:gateway`) is a gateway's own.
      const insert = this.sql("INSERT INTO usage_events (collection, session, kind, query, tools, outcome, at) SELECT ?, ?, ?, ?, ?, ?, ? WHERE substr(?, 1, 1) = ':' OR EXISTS (SELECT 1 FROM collections WHERE name = ?)");
      for (const e of events) insert.run(e.collection, e.session, e.kind, e.query ?? null, JSON.stringify(e.tools), e.outcome ?? null, e.at, e.collection, e.collection);
      return { result: undefined, changes: [] };
    });
  }

  async listUsage(collection: string, limit = 100_000): Promise<UsageEvent[]> {
    const rows = this.guard(() => this.sql("SELECT * FROM (SELECT * FROM usage_events WHERE collection = ? ORDER BY id DESC LIMIT ?) ORDER BY id").all(collection, limit) as UsageRow[]);
    return rows.map(toUsage);
  }

  async pruneUsage(before: string, keep: number): Promise<number> {
    return this.write(() => {
      let pruned = this.sql("DELETE FROM usage_events WHERE at < ?").run(before).changes;
      const collections = this.sql("SELECT DISTINCT collection FROM usage_events").pluck().all() as string[];
      for (const c of collections) {
        pruned += this.sql("DELETE FROM usage_events WHERE collection = ? AND id <= (SELECT id FROM usage_events WHERE collection = ? ORDER BY id DESC LIMIT 1 OFFSET ?)").run(c, c, keep).changes;
      }
      return { result: pruned, changes: [] };
    });
  }

  // Vectors

  async getMany(provider: string, hashes: string[], dimensions: number): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    const unique = [...new Set(hashes)];
    this.guard(() => {
      // Chunks of one fixed size (the last padded with a repeated hash), so that one compiled statement serves all.
      for (let start = 0; start < unique.length; start += VECTOR_CHUNK) {
        const chunk = unique.slice(start, start + VECTOR_CHUNK);
        while (chunk.length < VECTOR_CHUNK) chunk.push(chunk[0]);
        const rows = this.sql(VECTOR_SELECT).all(provider, ...chunk) as Array<{ hash: string; vector: Buffer }>;
        // A vector of another size (a provider that changed its output under the same id) counts as a miss.
        for (const row of rows) if (row.vector.byteLength === dimensions * 4) found.set(row.hash, toVector(row.vector));
      }
    });
    return found;
  }

  async putMany(provider: string, entries: Array<[hash: string, vector: Float32Array]>): Promise<void> {
    if (entries.length === 0) return;
    await this.write(() => {
      const insert = this.sql("INSERT OR REPLACE INTO vectors (provider, hash, vector) VALUES (?, ?, ?)");
      for (const [hash, vector] of entries) insert.run(provider, hash, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
      return { result: undefined, changes: [] };
    });
  }

  // Index snapshots

  async getSnapshot(collection: string): Promise<SnapshotRecord | undefined> {
    const row = this.guard(() => this.sql("SELECT collection, version, encoding, bytes FROM snapshots WHERE collection = ? ORDER BY version DESC LIMIT 1").get(collection) as SnapshotRecord | undefined);
    return row;
  }

  async snapshotVersion(collection: string): Promise<number | undefined> {
    return this.guard(() => this.sql("SELECT max(version) FROM snapshots WHERE collection = ?").pluck().get(collection) as number | null) ?? undefined;
  }

  async putSnapshot(snapshot: SnapshotRecord): Promise<boolean> {
    return this.write(() => {
      const { collection, version } = snapshot;
      const newer = this.sql("SELECT 1 FROM snapshots WHERE collection = ? AND version >= ?").get(collection, version);
      if (newer) return { result: false, changes: [] };
      this.sql("INSERT INTO snapshots (collection, version, encoding, bytes, created_at) VALUES (?, ?, ?, ?, ?)")
        .run(collection, version, snapshot.encoding, snapshot.bytes, new Date().toISOString());
      this.sql("DELETE FROM snapshots WHERE collection = ? AND version < ?").run(collection, version);
      return { result: true, changes: [] };
    });
  }

  async deleteSnapshots(collection: string): Promise<number> {
    return this.write(() => ({ result: this.sql("DELETE FROM snapshots WHERE collection = ?").run(collection).changes, changes: [] }));
  }

  // MCP manifests

  async getManifest(owner: string, server: string): Promise<ManifestRecord | undefined> {
    const row = this.guard(
      () =>
        this.sql("SELECT * FROM manifests WHERE owner = ? AND server = ?").get(owner, server) as
          | { owner: string; server: string; config_hash: string; tools: string; offer: string | null; updated_at: string }
          | undefined,
    );
    return row && { owner: row.owner, server: row.server, configHash: row.config_hash, tools: JSON.parse(row.tools), ...(row.offer ? { offer: JSON.parse(row.offer) } : {}), updatedAt: row.updated_at };
  }

  async putManifest(manifest: Omit<ManifestRecord, "updatedAt">): Promise<void> {
    const tools = JSON.stringify(manifest.tools);
    await this.write(() => {
      this.db
        .prepare(`INSERT INTO manifests (owner, server, config_hash, tools, offer, updated_at) VALUES (?, ?, ?, ?, ?, ?)
                  ON CONFLICT(owner, server) DO UPDATE SET config_hash = excluded.config_hash, tools = excluded.tools,
                  offer = excluded.offer, updated_at = excluded.updated_at`)
        .run(manifest.owner, manifest.server, manifest.configHash, tools, manifest.offer ? JSON.stringify(manifest.offer) : null, new Date().toISOString());
      return { result: undefined, changes: [] };
    });
  }

  async deleteManifest(owner: string, server: string): Promise<void> {
    await this.write(() => ({ result: this.sql("DELETE FROM manifests WHERE owner = ? AND server = ?").run(owner, server), changes: [] }));
  }

  // Audit log

  async appendAudit(entries: AuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.write(() => {
      const insert = this.sql("INSERT INTO audit (at, who, action, collection, target, outcome, duration_ms, argument_bytes, arguments, screen, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
      for (const e of entries) insert.run(...auditColumns(e));
      return { result: undefined, changes: [] };
    });
  }

  async listAudit(query: AuditQuery = {}): Promise<AuditRecord[]> {
    const { where, values } = auditWhere(query, () => "?");
    const rows = this.guard(() => this.sql(`SELECT * FROM audit ${where} ORDER BY id DESC LIMIT ?`).all(...values, query.limit ?? 100) as AuditRow[]);
    return rows.map(toAudit);
  }

  async pruneAudit(before: string): Promise<number> {
    return this.write(() => ({ result: this.sql("DELETE FROM audit WHERE at < ?").run(before).changes, changes: [] }));
  }

  // Secrets

  async getSecret(owner: string, name: string): Promise<string | undefined> {
    return this.guard(() => this.sql("SELECT sealed FROM secrets WHERE owner = ? AND name = ?").pluck().get(owner, name) as string | undefined);
  }

  async putSecret(owner: string, name: string, sealed: string): Promise<void> {
    await this.write(() => {
      this.sql(`INSERT INTO secrets (owner, name, sealed, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(owner, name) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at`).run(owner, name, sealed, new Date().toISOString());
      return { result: undefined, changes: [] };
    });
  }

  async deleteSecrets(owner: string, name?: string): Promise<void> {
    await this.write(() => {
      if (name === undefined) this.sql("DELETE FROM secrets WHERE owner = ?").run(owner);
      else this.sql("DELETE FROM secrets WHERE owner = ? AND name = ?").run(owner, name);
      return { result: undefined, changes: [] };
    });
  }

  // Pinned tool definitions

  async listPins(owner: string): Promise<PinRecord[]> {
    const rows = this.guard(() => this.sql("SELECT * FROM tool_pins WHERE owner = ? ORDER BY server, tool").all(owner) as (PinRow & { updated_at: string })[]);
    return rows.map((row) => pinFromRow(row, row.updated_at));
  }

  async putPins(pins: Omit<PinRecord, "updatedAt">[]): Promise<void> {
    if (!pins.length) return;
    await this.write(() => {
      const upsert = this.sql(`INSERT INTO tool_pins (owner, server, tool, state, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT(owner, server, tool) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`);
      const now = new Date().toISOString();
      for (const pin of pins) upsert.run(pin.owner, pin.server, pin.tool, pinState(pin), now);
      return { result: undefined, changes: [] };
    });
  }

  async claimPins(pins: Omit<PinRecord, "updatedAt">[]): Promise<PinRecord[]> {
    if (!pins.length) return [];
    return this.write(() => {
      // The write transaction is IMMEDIATE, so no other handle on this file writes between the check and the write.
      const claim = this.sql(`INSERT INTO tool_pins (owner, server, tool, state, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT(owner, server, tool) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at
        WHERE json_extract(tool_pins.state, '$.pinned') IS NULL`);
      const read = this.sql("SELECT * FROM tool_pins WHERE owner = ? AND server = ? AND tool = ?");
      const now = new Date().toISOString();
      const lost: PinRecord[] = [];
      for (const pin of pins) {
        if (claim.run(pin.owner, pin.server, pin.tool, pinState(pin), now).changes > 0) continue;
        const row = read.get(pin.owner, pin.server, pin.tool) as PinRow & { updated_at: string };
        lost.push(pinFromRow(row, row.updated_at));
      }
      return { result: lost, changes: [] };
    });
  }

  async deletePins(owner: string): Promise<void> {
    await this.write(() => ({ result: this.sql("DELETE FROM tool_pins WHERE owner = ?").run(owner), changes: [] }));
  }

  // Internals

  /** A prepared statement, compiled once per SQL text: auth and item reads run on every request. */
  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  /**
   * Queues `body` to run in a transaction; resolves with its result once that transaction is committed, then
   * announces its changes (after the commit, so a listener that re-reads a key sees the new state).
   *
   * Group commit: the writes queued in one turn of the event loop share one IMMEDIATE transaction, each inside its own
   * savepoint, so concurrent requests pay for one fsync between them, and a write that fails (a stale `ifMatch`, an
   * unknown collection) is rolled back alone. SQLite failures become `store_unavailable`.
   */
  private write<T>(body: () => { result: T; changes: Change[] }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ body, resolve: resolve as (value: unknown) => void, reject });
      if (this.queue.length === 1) setImmediate(() => this.commitQueued());
    });
  }

  private commitQueued(): void {
    const group = this.queue.splice(0);
    const outcomes: Array<{ out?: { result: unknown; changes: Change[] }; error?: unknown }> = [];
    try {
      this.db.transaction(() => {
        for (const write of group) {
          try {
            // A transaction function called inside another runs as a savepoint: on error only it is rolled back.
            outcomes.push({ out: this.db.transaction(write.body)() });
          } catch (error) {
            outcomes.push({ error });
          }
        }
      }).immediate();
    } catch (error) {
      const failure = this.asStoreError(error);
      for (const write of group) write.reject(failure);
      return;
    }
    group.forEach((write, i) => {
      const { out, error } = outcomes[i];
      if (out) {
        this.announce(out.changes);
        write.resolve(out.result);
      } else write.reject(this.asStoreError(error));
    });
  }

  /** Calls listeners after the commit; a throwing listener must not turn a committed write into an error. */
  private announce(changes: Change[]): void {
    if (changes.length === 0) return;
    for (const listener of this.listeners) {
      try {
        listener(changes);
      } catch {
        // The write is committed; a listener's failure is its own to report.
      }
    }
  }

  private guard<T>(body: () => T): T {
    try {
      return body();
    } catch (error) {
      throw this.asStoreError(error);
    }
  }

  /** Our own errors pass through; anything SQLite throws means the store could not do it. */
  private asStoreError(error: unknown): ToolsearchError {
    return error instanceof ToolsearchError ? error : unavailable(this.location, error);
  }

  private logChange(collection: string, scope: Change["scope"], key?: string): number {
    return Number(this.sql("INSERT INTO changes (collection, scope, key) VALUES (?, ?, ?)").run(collection, scope, key ?? null).lastInsertRowid);
  }

  private touch(collection: string, seq: number, now: string): void {
    this.sql("UPDATE collections SET updated_at = ?, version = ? WHERE name = ?").run(now, seq, collection);
  }

  private upsertRow(row: ItemRow): void {
    this.db
      .prepare(`INSERT INTO items (collection, key, body, etag, updated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(collection, key) DO UPDATE SET body = excluded.body, etag = excluded.etag, updated_at = excluded.updated_at`)
      .run(row.collection, row.key, row.body, row.etag, row.updated_at);
  }

  private collectionRow(name: string): CollectionRow | undefined {
    return this.sql(`${COLLECTION_SELECT} WHERE c.name = ?`).get(name) as CollectionRow | undefined;
  }

  private itemRow(collection: string, key: string): ItemRow | undefined {
    return this.sql("SELECT * FROM items WHERE collection = ? AND key = ?").get(collection, key) as ItemRow | undefined;
  }

  private requireCollection(name: string): void {
    if (!this.sql("SELECT 1 FROM collections WHERE name = ?").get(name)) throw unknownCollection(name);
  }
}

/** Hashes looked up per query when reading vectors. */
const VECTOR_CHUNK = 500;
const VECTOR_SELECT = `SELECT hash, vector FROM vectors WHERE provider = ? AND hash IN (${Array(VECTOR_CHUNK).fill("?").join(", ")})`;

const COLLECTION_SELECT = "SELECT c.*, (SELECT count(*) FROM items i WHERE i.collection = c.name) AS size FROM collections c";

function toCollection(row: CollectionRow): CollectionRecord {
  return { name: row.name, kind: row.kind, config: JSON.parse(row.config), size: row.size, updatedAt: row.updated_at, version: row.version };
}

function toItem(row: ItemRow): ItemRecord {
  return { collection: row.collection, key: row.key, body: JSON.parse(row.body), etag: row.etag, updatedAt: row.updated_at };
}

function unavailable(location: string, error: unknown): ToolsearchError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ToolsearchError("store_unavailable", `store ${location}: ${reason}; nothing was changed`);
}
