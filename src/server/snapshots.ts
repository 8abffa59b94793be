/**
 * Index snapshots of `tools` and `docs` collections, kept in the store so that every replica can (re)load a
 * collection without analyzing its items again.
 *
 * A snapshot is only a cache of the store: it is tagged with the collection's `version` (the seq of its last change)
 * and a loader uses it only when the change log since that version can be replayed onto it; anything else rebuilds
 * from the items. Snapshots live in a table of their own as bytes (`Store.putSnapshot`), gzip-compressed when that
 * saves at least a fifth: index snapshots hold mostly small integers and repeated JSON keys, and compress about 5×
 * (docs/service.md, "Snapshots"). Compression and decompression run on libuv's thread pool, so a large snapshot never
 * stalls the requests of other collections.
 *
 * One replica writes each version: `saveSnapshot` first asks whether the store already has this version (or a newer
 * one) and makes nothing then; two replicas that both ask before either writes race in `putSnapshot`, where the
 * store's key lets exactly one insert.
 *
 * @example
 * await saveSnapshot(store, "crm", record.version, () => index.snapshot()); // true when this call wrote it
 * const saved = await readSnapshot(store, "crm"); // { version, bytes } or undefined
 */
import { promisify } from "node:util";
import { constants as zlibConstants, gunzip, gzip } from "node:zlib";
import type { Store } from "../store/types.js";

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** The largest raw/compressed ratio a snapshot's gzip trailer is believed for (index snapshots compress ~3-5×). */
const MAX_RATIO = 64;

/** Compressed bytes are stored only when they are at most this share of the raw ones. */
const WORTH_IT = 0.8;

/** A stored snapshot (decompressed) and the collection version it was taken at. */
export interface SavedSnapshot {
  version: number;
  bytes: Buffer;
  /** Its size as stored (compressed or not). */
  storedBytes: number;
}

/** The collection's newest stored snapshot, decompressed, or undefined when there is none. */
export async function readSnapshot(store: Store, collection: string): Promise<SavedSnapshot | undefined> {
  const record = await store.getSnapshot(collection);
  if (!record) return undefined;
  if (record.encoding !== "gzip" && record.encoding !== "raw") throw new Error(`it is stored as ${JSON.stringify(record.encoding)}, which this version cannot read`);
  const bytes = record.encoding === "gzip" ? await gunzipAsync(record.bytes, { chunkSize: outputChunk(record.bytes) }) : record.bytes;
  return { version: record.version, bytes, storedBytes: record.bytes.length };
}

/**
 * The output chunk to gunzip into: the whole size the gzip trailer states, so that the result is that one buffer
 * rather than a copy joining many small chunks (measured: a copy of ~80 MB took a tenth of a document collection's
 * load). A trailer stating more than any sane ratio (a damaged one) gets zlib's default; gunzip then fails or copies.
 */
function outputChunk(packed: Buffer): number {
  const stated = packed.length >= 18 ? packed.readUInt32LE(packed.length - 4) : 0;
  return stated > 0 && stated <= packed.length * MAX_RATIO ? Math.max(stated, zlibConstants.Z_MIN_CHUNK) : zlibConstants.Z_DEFAULT_CHUNK;
}

/**
 * Stores a snapshot taken when the collection was at `version`, unless the store already has that version or a newer
 * one (then `make` is never called). True when this call wrote it.
 */
export async function saveSnapshot(store: Store, collection: string, version: number, make: () => Buffer): Promise<boolean> {
  const stored = await store.snapshotVersion(collection);
  if (stored !== undefined && stored >= version) return false;
  const raw = make();
  const packed = await gzipAsync(raw);
  const worth = packed.length <= raw.length * WORTH_IT;
  return store.putSnapshot({ collection, version, encoding: worth ? "gzip" : "raw", bytes: worth ? packed : raw });
}

/** Removes a collection's snapshots (after the collection is deleted). */
export async function deleteSnapshot(store: Store, collection: string): Promise<void> {
  await store.deleteSnapshots(collection);
  // Snapshots of earlier releases lived in the settings; drop one left behind.
  await store.setSetting(`index-snapshot:${collection}`, undefined);
}
