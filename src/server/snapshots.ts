/**
 * Index snapshots of `tools` collections, kept in the store so that every replica can restart from them.
 *
 * A snapshot is only a cache of the store: it is tagged with the collection's `version` (the seq of its last change)
 * and used only while that tag still equals the collection's current version; anything else rebuilds from the items.
 * It lives in the store's settings (a base64 string under `index-snapshot:<collection>`) rather than in a table of its
 * own: settings already exist in both stores and are shared by replicas, so no schema migration is needed, and a
 * snapshot is written rarely (debounced, off the request path) and read once per restart.
 *
 * @example
 * await saveSnapshot(store, "crm", record.version, index.snapshot());
 * const saved = await readSnapshot(store, "crm"); // { version, bytes } or undefined
 */
import type { Store } from "../store/types.js";

/** Snapshot encodings this module reads; a stored value of another shape is ignored (rebuilt). */
const FORMAT = 1;

/** The settings key of a collection's snapshot. */
export function snapshotKey(collection: string): string {
  return `index-snapshot:${collection}`;
}

/** A stored snapshot and the collection version it was taken at. */
export interface SavedSnapshot {
  version: number;
  bytes: Buffer;
}

interface StoredValue {
  format: number;
  version: number;
  data: string;
}

/** The collection's stored snapshot, or undefined when there is none (or it has an unknown shape). */
export async function readSnapshot(store: Store, collection: string): Promise<SavedSnapshot | undefined> {
  const value = (await store.getSetting(snapshotKey(collection))) as Partial<StoredValue> | undefined;
  if (!value || value.format !== FORMAT || typeof value.version !== "number" || typeof value.data !== "string") return undefined;
  return { version: value.version, bytes: Buffer.from(value.data, "base64") };
}

/** Stores a snapshot taken when the collection was at `version`, replacing the previous one. */
export async function saveSnapshot(store: Store, collection: string, version: number, bytes: Buffer): Promise<void> {
  const value: StoredValue = { format: FORMAT, version, data: bytes.toString("base64") };
  await store.setSetting(snapshotKey(collection), value);
}

/** Removes a collection's snapshot (after the collection is deleted). */
export async function deleteSnapshot(store: Store, collection: string): Promise<void> {
  await store.setSetting(snapshotKey(collection), undefined);
}
