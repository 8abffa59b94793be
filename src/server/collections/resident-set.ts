/**
 * What a replica knows of the store's collections and which of them it holds in memory: every collection's record as
 * last read (loaded or not), the loaded ones with their indexes, the order they were last used in and the requests
 * using each (src/server/collection-cache.ts), and what their indexes weigh against the memory budget.
 *
 * It decides nothing about the store and does no I/O: `ChangeApplier` (src/server/collections/apply-changes.ts) puts
 * collections in and takes them out, and asks `roomFor` which idle ones to drop before a load.
 *
 * @example
 * const residents = new ResidentSet(64 * MB);
 * residents.know(record);
 * residents.hold(collection); // loaded, used now
 * for (const name of residents.roomFor(next, isBusy)) await evict(name);
 */
import type { CollectionRecord } from "../../store/types.js";
import { CollectionCache } from "../collection-cache.js";
import { idleEntry, type LoadedCollection } from "./types.js";

export class ResidentSet {
  private readonly loaded = new Map<string, LoadedCollection>();
  /** Every collection of the store, loaded or not, as last read. */
  private readonly records = new Map<string, CollectionRecord>();
  private readonly cache: CollectionCache;

  /** `budgetBytes`: what the loaded indexes may hold (undefined: no bound). */
  constructor(budgetBytes?: number) {
    this.cache = new CollectionCache(budgetBytes);
  }

  /** The memory budget in bytes, if any. */
  get budget(): number | undefined {
    return this.cache.budget;
  }

  /** Records a collection of the store as just read. */
  know(record: CollectionRecord): void {
    this.records.set(record.name, record);
  }

  /** A collection's record as last read. */
  recordOf(name: string): CollectionRecord | undefined {
    return this.records.get(name);
  }

  /** Forgets the record of a collection found gone from the store before it was loaded. */
  forgetRecord(name: string): void {
    this.records.delete(name);
  }

  knows(name: string): boolean {
    return this.records.has(name);
  }

  /** Names of every collection known, in the order they were first learned. */
  knownNames(): string[] {
    return [...this.records.keys()];
  }

  /** A loaded collection, or undefined. */
  find(name: string): LoadedCollection | undefined {
    return this.loaded.get(name);
  }

  isLoaded(name: string): boolean {
    return this.loaded.has(name);
  }

  /** The loaded collections. */
  loadedCollections(): LoadedCollection[] {
    return [...this.loaded.values()];
  }

  get loadedCount(): number {
    return this.loaded.size;
  }

  /** Bytes the loaded indexes hold, as they count them. */
  get loadedBytes(): number {
    let total = 0;
    for (const collection of this.loaded.values()) total += bytesOf(collection);
    return total;
  }

  /**
   * Every collection of the store, by name: the loaded ones, and the others as their records (`loaded` false, no
   * index), so that listings and metrics see the whole store whatever this replica holds.
   */
  list(): LoadedCollection[] {
    const all = [...this.records.values()].map((record) => this.loaded.get(record.name) ?? idleEntry(record));
    for (const collection of this.loaded.values()) if (!this.records.has(collection.name)) all.push(collection);
    return all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Holds a collection as loaded (replacing any held under its name) and marks it used now; returns the one replaced. */
  hold(collection: LoadedCollection): LoadedCollection | undefined {
    const previous = this.loaded.get(collection.name);
    this.loaded.set(collection.name, collection);
    this.cache.touch(collection.name);
    return previous;
  }

  /** Stops holding a collection's index (dropped for the budget): its record stays known. */
  unload(name: string): LoadedCollection | undefined {
    const gone = this.loaded.get(name);
    this.loaded.delete(name);
    this.cache.forget(name);
    return gone;
  }

  /** Forgets a collection the store no longer has: its index and its record. */
  forget(name: string): LoadedCollection | undefined {
    this.records.delete(name);
    return this.unload(name);
  }

  /** Forgets every loaded collection at once (`close`); records stay. */
  unloadAll(): void {
    for (const name of this.loaded.keys()) this.cache.forget(name);
    this.loaded.clear();
  }

  /** Marks a collection used now (least recently used ones are dropped first). */
  touch(name: string): void {
    this.cache.touch(name);
  }

  /** A request starts using a collection: it is not dropped for the budget until `unpin`. */
  pin(name: string): void {
    this.cache.pin(name);
  }

  unpin(name: string): void {
    this.cache.unpin(name);
  }

  /**
   * The idle loaded collections to drop, least recently used first, so that `next` fits the budget: never `next`'s
   * own name (it is being replaced), a pinned one or one `busy` names. Empty without a budget.
   */
  roomFor(next: LoadedCollection, busy: (collection: LoadedCollection) => boolean): string[] {
    if (this.cache.budget === undefined) return [];
    const sizeOf = (name: string) => (name === next.name ? 0 : bytesOf(this.loaded.get(name)));
    const inUse = (name: string) => {
      const held = this.loaded.get(name);
      return name === next.name || (held !== undefined && busy(held));
    };
    return this.cache.victims(bytesOf(next), sizeOf, inUse);
  }

  /** Bytes the loaded indexes would hold with `next` in, when that is over the budget (else undefined). */
  overBudget(next: LoadedCollection): number | undefined {
    if (this.cache.budget === undefined) return undefined;
    const total = this.loadedBytes - bytesOf(this.loaded.get(next.name)) + bytesOf(next);
    return total > this.cache.budget ? total : undefined;
  }
}

/**
 * Bytes a collection's index holds (`memoryBytes`), counted once after each change, and again when its embedding
 * texts or vectors have come or gone since: those are made by its first dense search, after the count may be taken.
 */
export function bytesOf(collection: LoadedCollection | undefined): number {
  if (!collection) return 0;
  const index = collection.docs ?? collection.tools;
  const entries = index?.semanticEntries ?? 0;
  // A size given without the count it was taken at (no index behind it) stays as given.
  if (collection.bytes === undefined || (collection.bytesAt ?? 0) !== entries) {
    collection.bytes = index?.memoryBytes() ?? 0;
    collection.bytesAt = entries;
  }
  return collection.bytes;
}
