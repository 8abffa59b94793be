/**
 * What both stores share about records: row conversions, ETags, key ids, and the errors a write can end in. Kept apart
 * from either store so that a PostgreSQL deployment does not load SQLite's native module, nor the reverse.
 */
import { createHash, randomBytes } from "node:crypto";
import { ToolsearchError } from "../errors.js";
import type { ApiKeyRecord, AuditEntry, AuditQuery, AuditRecord, PinRecord, Scope, WriteOptions } from "./types.js";

/** An API key as both stores keep it (snake-case columns). */
export interface KeyRow {
  id: string;
  scope: Scope;
  collection: string | null;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
  /** JSON arrays of tool-name globs (SPEC §16), NULL for none. */
  tools_allow?: string | null;
  tools_deny?: string | null;
}

/** The error for a collection the store does not hold. */
export function unknownCollection(name: string): ToolsearchError {
  return new ToolsearchError("unknown_collection", `Unknown collection ${JSON.stringify(name)}.`, { details: { collection: name } });
}

/** Throws `precondition_failed` when `ifMatch` is given and differs from the current ETag (or the item is absent). */
export function checkMatch(collection: string, key: string, current: { etag: string } | undefined, options: WriteOptions): void {
  if (options.ifMatch === undefined || current?.etag === options.ifMatch) return;
  const now = current ? `its current ETag is ${JSON.stringify(current.etag)}` : "it does not exist";
  throw new ToolsearchError("precondition_failed", `${collection}/${key}: If-Match ${JSON.stringify(options.ifMatch)} does not match (${now}); nothing was changed`, {
    details: { collection, key, etag: current?.etag ?? null },
  });
}

/** An ETag that differs on every write (the seq) and names the content (a hash prefix), for people reading logs. */
export function etagOf(seq: number, body: string): string {
  return `${seq.toString(36)}-${createHash("sha256").update(body).digest("hex").slice(0, 12)}`;
}

/** A new random key id (not secret). */
export function newId(): string {
  return randomBytes(6).toString("hex");
}

/** An API key row (as both stores keep it) as a record. */
export function toKey(row: KeyRow): ApiKeyRecord {
  const key: ApiKeyRecord = { id: row.id, scope: row.scope, createdAt: row.created_at };
  if (row.collection !== null) key.collection = row.collection;
  if (row.label !== null) key.label = row.label;
  if (row.revoked_at !== null) key.revokedAt = row.revoked_at;
  if (row.tools_allow) key.toolsAllow = JSON.parse(row.tools_allow) as string[];
  if (row.tools_deny) key.toolsDeny = JSON.parse(row.tools_deny) as string[];
  return key;
}

/** A key's glob list as its column holds it: a JSON array, or NULL for none. */
export function globsColumn(globs: string[] | undefined): string | null {
  return globs === undefined ? null : JSON.stringify(globs);
}

/** A stored vector blob as a Float32Array (copied). */
export function toVector(blob: Buffer): Float32Array {
  // Copy: the driver may reuse the blob's memory, and a Float32Array needs 4-byte alignment.
  const out = new Float32Array(blob.byteLength / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

/**
 * Most connections one PostgreSQL pool may ask for (`serve --pg-pool-size`, `TOOLSEARCH_PG_POOL_SIZE`): a larger figure
 * is a typo, since PostgreSQL's default `max_connections` is 100. Here, not in postgres.ts, so the CLI can check the
 * flag without loading `pg`.
 */
export const MAX_POOL_SIZE = 1000;

/** An audit entry as both stores keep it. */
export interface AuditRow {
  id: number | string;
  at: string;
  who: string;
  action: string;
  collection: string;
  target: string | null;
  outcome: string;
  duration_ms: number;
  argument_bytes: number | null;
  arguments: string | null;
  request_id: string | null;
}

/** How many columns `auditColumns` gives. */
export const AUDIT_COLUMNS = 10;

/** The column values of an audit entry, in the order of both stores' INSERT. */
export function auditColumns(e: AuditEntry): unknown[] {
  const args = e.arguments === undefined ? null : JSON.stringify(e.arguments);
  return [e.at, e.who, e.action, e.collection, e.target ?? null, e.outcome, e.durationMs, e.argumentBytes ?? null, args, e.requestId ?? null];
}

/** The WHERE clause of an audit query; `param` names the next placeholder (`?` or `$n`). */
export function auditWhere(query: AuditQuery, param: () => string): { where: string; values: unknown[] } {
  const clauses: string[] = [];
  const values: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    clauses.push(`${sql} ${param()}`);
    values.push(value);
  };
  if (query.since !== undefined) add("at >=", query.since);
  if (query.collection !== undefined) add("collection =", query.collection);
  if (query.who !== undefined) add("who =", query.who);
  if (query.before !== undefined) add("id <", query.before);
  return { where: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", values };
}

/** A stored audit row as a record. */
export function toAudit(row: AuditRow): AuditRecord {
  const record: AuditRecord = { id: Number(row.id), at: row.at, who: row.who, action: row.action, collection: row.collection, outcome: row.outcome, durationMs: Number(row.duration_ms) };
  if (row.target !== null) record.target = row.target;
  if (row.argument_bytes !== null) record.argumentBytes = Number(row.argument_bytes);
  if (row.arguments !== null) record.arguments = JSON.parse(row.arguments) as unknown;
  if (row.request_id !== null && row.request_id !== undefined) record.requestId = row.request_id;
  return record;
}

/** A pin as both stores keep it: its key columns and the rest as one JSON `state` column. */
export interface PinRow {
  owner: string;
  server: string;
  tool: string;
  state: string;
}

/** The JSON `state` column of a pin: everything but its key and time. */
export function pinState(pin: Omit<PinRecord, "updatedAt">): string {
  const { owner: _owner, server: _server, tool: _tool, ...state } = pin as PinRecord;
  delete (state as Partial<PinRecord>).updatedAt;
  return JSON.stringify(state);
}

export function pinFromRow(row: PinRow, updatedAt: string): PinRecord {
  return { owner: row.owner, server: row.server, tool: row.tool, ...(JSON.parse(row.state) as object), updatedAt };
}
