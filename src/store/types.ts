/**
 * The store: the service's source of truth. Collections, their items exactly as clients gave them, API keys (hashed),
 * settings, embedding vectors and MCP manifests live here; every in-memory index is a cache rebuilt from it.
 *
 * Two implementations share this interface: `SqliteStore` (embedded, one process; the default) and `PostgresStore`
 * (shared by replicas). Routes, indexes and the gateway see only this interface, so either drops in.
 *
 * Rules every implementation keeps:
 * - A method resolves only once its write is committed (durable); a failed write changes nothing.
 * - Every committed write to a collection or item appends one `Change` per touched key to the change log, in the same
 *   transaction, with a strictly increasing `seq` that has no gaps (a rolled-back write leaves none), so a gap in what
 *   `changesSince` returns can only mean the log was pruned past that point and the reader must reload.
 *   `changesSince` replays them; `onChange` announces them (locally for SQLite, through LISTEN/NOTIFY for PostgreSQL).
 *   A change names *what* changed, not the new content: a reader applies it by reading the current state of that
 *   key, which makes applying a change idempotent.
 * - `ifMatch` on a write compares with the current ETag and throws `ToolsearchError("precondition_failed")` without
 *   writing when it differs (or when the item is absent).
 * - Clients' mistakes throw `ToolsearchError` with a code of `src/errors.ts`; an unreachable database throws
 *   `ToolsearchError("store_unavailable")`.
 */

/** What a collection holds: a tool catalog, a knowledge base, or the live tools of an MCP configuration. */
export type CollectionKind = "tools" | "docs" | "mcp";

/** API key scopes, weakest first: each includes the ones before it. */
export const SCOPES = ["read", "call", "write", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

/** A collection as stored (its items are read separately). */
export interface CollectionRecord {
  name: string;
  kind: CollectionKind;
  /** For `mcp`: the gateway configuration (`{mcpServers, openapi?}`) as given. For the others: options, or `{}`. */
  config: Record<string, unknown>;
  /** Number of items. */
  size: number;
  /** ISO 8601 time of the last committed change to the collection or any of its items. */
  updatedAt: string;
  /** `seq` of the last change to the collection or any of its items. */
  version: number;
}

/** One tool (keyed by name) or document (keyed by id), exactly as given. */
export interface ItemRecord {
  collection: string;
  /** The tool's name or the document's id. */
  key: string;
  /** The item as the client sent it (any tool shape of SPEC §3, or a document). */
  body: unknown;
  /** Opaque; changes with every write of this item. Served as the `ETag` header. */
  etag: string;
  updatedAt: string;
}

/** A new or replacing item in a write. */
export interface ItemInput {
  key: string;
  body: unknown;
}

/** One entry of the change log. */
export interface Change {
  /** Strictly increasing across the whole store. */
  seq: number;
  collection: string;
  /**
   * `collection`: the collection was created, replaced whole or deleted (re-read it, or drop it when absent).
   * `item`: one item was created, replaced or deleted (re-read that key, or drop it when absent).
   * `curation`: the collection's synonyms or rules (`key`) were replaced (re-read them; the items are unchanged).
   */
  scope: "collection" | "item" | "curation";
  /** The item's key for `scope: "item"`; `synonyms` or `rules` for `scope: "curation"`. */
  key?: string;
}

/** Conditional write: fail with `precondition_failed` unless the current ETag equals this. */
export interface WriteOptions {
  ifMatch?: string;
}

/** An API key as stored: never the key itself, only its hash. */
export interface ApiKeyRecord {
  id: string;
  scope: Scope;
  /** Limits the key to one collection; absent means every collection. */
  collection?: string;
  label?: string;
  createdAt: string;
  revokedAt?: string;
  /**
   * Tool visibility (SPEC §16): globs on tool names (`*`, `?`). With `toolsAllow` the key sees only the tools that
   * match one of them; a tool matching a `toolsDeny` glob is hidden in every case. A hidden tool does not exist for
   * this key anywhere (search, describe, call, sizes, lint, explain, eval, MCP).
   */
  toolsAllow?: string[];
  toolsDeny?: string[];
}

/** A server's tool list as last seen, and a hash of the configuration block it was seen with. */
export interface ManifestRecord {
  /** Who owns the manifest (e.g. `gateway` or `collection:<name>`) and the server's name in that configuration. */
  owner: string;
  server: string;
  configHash: string;
  /** The tools as the server listed them (MCP shape). */
  tools: unknown[];
  /**
   * Its resources, resource templates and prompts as listed at the same time (MCP shapes); absent in manifests
   * written before the gateway served them, which the gateway treats as unknown.
   */
  offer?: ManifestOffer;
  updatedAt: string;
}

/** What a server offered besides tools, as a manifest keeps it. */
export interface ManifestOffer {
  resources: unknown[];
  resourceTemplates: unknown[];
  prompts: unknown[];
}

/** Why a tool definition waits for review (SPEC §16). */
export type HoldReason = "changed" | "new" | "flagged";

/**
 * One upstream tool's pinned definition and the change held for review (SPEC §16). The pinned definition is what
 * the gateway serves; a changed or new definition waits in `held` until someone approves or rejects it.
 */
export interface PinRecord {
  /** Whose pins these are (`gateway` or `collection:<name>`, as for manifests), the server and its own tool name. */
  owner: string;
  server: string;
  tool: string;
  /** The definition being served (MCP tool shape); absent while a new tool waits for its first approval. */
  pinned?: unknown;
  /** The definition waiting for review; absent when nothing waits. */
  held?: unknown;
  /** Why `held` waits. */
  reason?: HoldReason;
  /** Error-level poisoning findings on `held` (`{rule, message}`), when it was flagged. */
  findings?: { rule: string; message: string }[];
  /** Digest of the last rejected definition: the same definition is not raised again. */
  rejected?: string;
  updatedAt: string;
}

/** Vectors keyed by provider id and a SHA-256 of the embedded text; shared by every replica on one store. */
export interface VectorStore {
  getMany(provider: string, hashes: string[], dimensions: number): Promise<Map<string, Float32Array>>;
  putMany(provider: string, entries: Array<[hash: string, vector: Float32Array]>): Promise<void>;
}

/** One audit log entry (SPEC §16): a tool call, a write to a collection, or a review decision. */
export interface AuditEntry {
  /** ISO 8601 time the action finished. */
  at: string;
  /** Key id or token subject (`anonymous` with --no-auth). */
  who: string;
  /** `call_tool`, `put_item`, `delete_item`, `batch`, `put_collection`, `delete_collection`, `review`, … */
  action: string;
  collection: string;
  /** The tool's name or the item's key; absent for whole-collection actions. */
  target?: string;
  /** `ok`, `error`, `refused`, `failed`, or an HTTP status such as `412`. */
  outcome: string;
  durationMs: number;
  argumentBytes?: number;
  /** Only with `--audit-arguments`. */
  arguments?: unknown;
  /** What result screening found in the call's result and did (SPEC §16): `flagged` (warn) or `blocked`. */
  screen?: { action: "flagged" | "blocked"; flags: { rule: string; excerpt: string }[] };
  /** The id of the HTTP request that caused it (`x-request-id`, SPEC §18), when there was one. */
  requestId?: string;
}

/** An audit entry as stored: with its position in the log (a cursor for paging). */
export interface AuditRecord extends AuditEntry {
  id: number;
}

/** Which audit entries to read: newest first, `before` an id (paging), at most `limit`. */
export interface AuditQuery {
  /** ISO 8601: entries at or after this time. */
  since?: string;
  collection?: string;
  who?: string;
  /** Entries with an id below this one (the last id of the previous page). */
  before?: number;
  /** Default 100. */
  limit?: number;
}

/**
 * A saved index of one collection at one version (src/server/snapshots.ts): opaque bytes to the store. Only a cache:
 * the items are the truth, and a reader uses it only when `version` fits the collection.
 */
export interface SnapshotRecord {
  collection: string;
  /** The collection's `version` the index was taken at. */
  version: number;
  /** How `bytes` are packed (e.g. `raw`, `gzip`); the store does not look. */
  encoding: string;
  bytes: Buffer;
}

export type Unsubscribe = () => void;

/**
 * What curation a collection keeps (SPEC §17), each one JSON value checked by `src/usage/curation.ts`: synonyms,
 * pinned rules, and `learning` (`{enabled}`, the per-collection switch of the learned signal).
 */
export type CurationKind = "synonyms" | "rules" | "learning";

/** One usage event (SPEC §17): a search, a load (describe) of a tool, or a call of one and how it ended. */
export interface UsageEvent {
  /** The collection; or a name starting with `:`, which no collection can have, for a gateway's own (`:gateway`). */
  collection: string;
  /** Who made it: an MCP session id, or a client-chosen id over REST; events of one session are read in order. */
  session: string;
  kind: "search" | "load" | "call";
  /** The query of a search. */
  query?: string;
  /** Searches: the tools returned, best first; loads and calls: the tool. */
  tools: string[];
  /** Calls: `ok`, or `error` when the call failed or the tool reported an error. */
  outcome?: "ok" | "error";
  /** ISO 8601 time. */
  at: string;
}

export interface Store extends VectorStore {
  /** `sqlite` or `postgres`. */
  readonly kind: string;
  /** Where it lives, without secrets (a path, or a URL with the password hidden). */
  readonly location: string;

  /** Creates or upgrades the schema (versioned, idempotent, safe when several processes start at once). */
  migrate(): Promise<void>;
  close(): Promise<void>;

  // Collections
  listCollections(): Promise<CollectionRecord[]>;
  getCollection(name: string): Promise<CollectionRecord | undefined>;
  /** Creates or replaces a collection and all its items atomically. `created` says which. */
  putCollection(
    name: string,
    kind: CollectionKind,
    config: Record<string, unknown>,
    items: ItemInput[],
  ): Promise<{ created: boolean; collection: CollectionRecord }>;
  /** Deletes a collection and its items; false when there was none. */
  deleteCollection(name: string): Promise<boolean>;

  // Items (the collection must exist: else `unknown_collection`)
  listItems(collection: string): Promise<ItemRecord[]>;
  getItem(collection: string, key: string): Promise<ItemRecord | undefined>;
  putItem(collection: string, item: ItemInput, options?: WriteOptions): Promise<{ created: boolean; item: ItemRecord }>;
  /** False when there was no such item. With `ifMatch` an absent item is `precondition_failed`. */
  deleteItem(collection: string, key: string, options?: WriteOptions): Promise<boolean>;
  /** Upserts and deletes in one transaction: all or nothing. Deleting an absent key is not an error (not counted). */
  batch(collection: string, upsert: ItemInput[], remove: string[]): Promise<{ upserted: number; deleted: number }>;

  // Change feed
  /** Changes with `seq > after`, oldest first, at most `limit` (default 1000); only `collection`'s when given. */
  changesSince(after: number, limit?: number, collection?: string): Promise<Change[]>;
  /** The highest `seq` committed so far (0 for none). */
  latestSeq(): Promise<number>;
  /** Called after each commit with its changes (from any process for a shared store). */
  onChange(listener: (changes: Change[]) => void): Unsubscribe;
  /** Drops log entries with `seq <= upTo` (never ones a live reader may still need: the caller decides). */
  pruneChanges(upTo: number): Promise<number>;

  // API keys
  createKey(key: ApiKeyRecord & { hash: string }): Promise<void>;
  /** The live (not revoked) key with this hash. */
  keyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listKeys(): Promise<ApiKeyRecord[]>;
  /** False when no live key has this id. */
  revokeKey(id: string): Promise<boolean>;

  // Settings (small JSON values)
  getSetting(key: string): Promise<unknown>;
  setSetting(key: string, value: unknown): Promise<void>;

  // Curation (the collection must exist: else `unknown_collection`)
  /** The stored synonyms or rules of a collection, or undefined. Deleted with the collection. */
  getCuration(collection: string, kind: CurationKind): Promise<unknown>;
  /** Replaces them (`undefined` deletes), logging a `curation` change so every replica re-reads them. */
  putCuration(collection: string, kind: CurationKind, value: unknown): Promise<void>;

  // Usage events (not in the change log: they are many, and only the learned signal reads them)
  /** Appends events. Events of an unknown collection are dropped, not an error (it may have just been deleted); those of a `:` name (a gateway's own) are kept. */
  recordUsage(events: UsageEvent[]): Promise<void>;
  /** A collection's most recent events (at most `limit`, default 100 000), oldest first. */
  listUsage(collection: string, limit?: number): Promise<UsageEvent[]>;
  /** Deletes events older than `before` (ISO time), and beyond the newest `keep` of each collection; returns how many. */
  pruneUsage(before: string, keep: number): Promise<number>;

  // Index snapshots (binary; at most one per collection is kept, the newest)
  /** The newest snapshot of a collection, or undefined. */
  getSnapshot(collection: string): Promise<SnapshotRecord | undefined>;
  /** The version of the newest snapshot of a collection (without reading its bytes), or undefined. */
  snapshotVersion(collection: string): Promise<number | undefined>;
  /**
   * Stores a snapshot unless the collection already has one of this version or a newer one, and deletes its older
   * ones. True when this call wrote it: of replicas racing to save the same version, exactly one does.
   */
  putSnapshot(snapshot: SnapshotRecord): Promise<boolean>;
  /** Deletes every snapshot of a collection; the number deleted. */
  deleteSnapshots(collection: string): Promise<number>;

  // MCP manifests
  getManifest(owner: string, server: string): Promise<ManifestRecord | undefined>;
  putManifest(manifest: Omit<ManifestRecord, "updatedAt">): Promise<void>;
  deleteManifest(owner: string, server: string): Promise<void>;

  // Audit log (SPEC §16)
  /** Appends entries in one transaction (all or none). */
  appendAudit(entries: AuditEntry[]): Promise<void>;
  /** Entries matching `query`, newest first. */
  listAudit(query?: AuditQuery): Promise<AuditRecord[]>;
  /** Deletes entries older than `before` (ISO 8601); returns how many. */
  pruneAudit(before: string): Promise<number>;
  // Secrets (OAuth tokens, client secrets): the store keeps only what `src/auth/secrets.ts` sealed (AES-256-GCM)
  /** The sealed value kept under this owner and name. */
  getSecret(owner: string, name: string): Promise<string | undefined>;
  putSecret(owner: string, name: string, sealed: string): Promise<void>;
  /** Deletes one secret, or with `name` absent every secret of the owner. */
  deleteSecrets(owner: string, name?: string): Promise<void>;
  // Pinned tool definitions (SPEC §16)
  /** Every pin of an owner, ordered by server then tool. */
  listPins(owner: string): Promise<PinRecord[]>;
  /** Creates or replaces pins (keyed by owner, server, tool) in one transaction. */
  putPins(pins: Omit<PinRecord, "updatedAt">[]): Promise<void>;
  /**
   * Writes first pins as one compare-and-set per tool: each is written only where the tool has no pinned definition
   * yet (no row, or a row holding a never-approved new tool). Returns the stored pin of every tool whose claim lost
   * because another definition was pinned first (by another replica), so the caller can review its own against it.
   */
  claimPins(pins: Omit<PinRecord, "updatedAt">[]): Promise<PinRecord[]>;
  /** Drops every pin of an owner (a deleted collection's). */
  deletePins(owner: string): Promise<void>;
}
