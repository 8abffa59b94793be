/**
 * When a replica saves the index snapshots of its `tools` and `docs` collections (src/server/snapshots.ts holds the
 * format and the one-writer-per-version rule): a while after the last change to a collection (`saveDelayMs`,
 * default 5 s, so a burst of writes costs one), before the collection is dropped for the memory budget, and at
 * `close`. Saves run on the serial queue that applies the change log, so no change is half-applied while a snapshot is
 * taken.
 *
 * A snapshot is tagged with the collection's version as read from the store *after* the index was filled: a version
 * above the last change applied means changes the index may not hold yet, so nothing is saved until they are applied.
 * Below that bound every change up to the version is applied, and none after it can be in the index (versions only
 * grow), so the index is exactly the collection at that version.
 *
 * @example
 * const schedule = new SnapshotSchedule({ store, queue, find, appliedSeq: () => follower.appliedSeq, log });
 * schedule.markUnsaved(collection); // saved in saveDelayMs
 * await schedule.saveAll(); // now (drain, close)
 */
import type { Store } from "../../store/types.js";
import { deleteSnapshot, saveSnapshot } from "../snapshots.js";
import type { SerialQueue } from "./serial-queue.js";
import { type LoadedCollection, messageOf } from "./types.js";

/** What `SnapshotSchedule` needs. */
export interface SnapshotScheduleOptions {
  store: Store;
  queue: SerialQueue;
  /** `Collections`' `snapshots` option: `false` neither reads nor writes them. */
  snapshots?: false | { saveDelayMs?: number };
  /** The loaded collection of a name, if any. */
  find: (name: string) => LoadedCollection | undefined;
  /** `seq` of the last change applied (`ChangeFollower.appliedSeq`). */
  appliedSeq: () => number;
  log: (line: string) => void;
}

export class SnapshotSchedule {
  /** Collections changed since their snapshot was last saved. */
  private readonly unsaved = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SnapshotScheduleOptions) {}

  get enabled(): boolean {
    return this.options.snapshots !== false;
  }

  /** Collections with changes their stored snapshot lacks. */
  get pending(): string[] {
    return [...this.unsaved];
  }

  /** Schedules a snapshot of a changed `tools` or `docs` collection, debounced so that a burst of writes saves once. */
  markUnsaved(collection: LoadedCollection): void {
    const { snapshots } = this.options;
    if (collection.kind === "mcp" || snapshots === false) return;
    this.unsaved.add(collection.name);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.saveAll(), snapshots?.saveDelayMs ?? 5000);
    // Pending snapshots must not keep a process alive: `close` saves them anyway.
    this.timer.unref();
  }

  /**
   * Saves the snapshot of every collection changed since its last one, once its index has applied every change to
   * it (else it is left for the next call). Queued, so no change is half-applied meanwhile. Resolves to the number
   * saved; failures are logged, not thrown (a snapshot is only a cache).
   */
  saveAll(): Promise<number> {
    let saved = 0;
    const done = this.options.queue.settle(async () => {
      for (const name of [...this.unsaved]) if (await this.saveOne(name)) saved++;
    }, (error) => this.options.log(`toolsearch serve: could not save index snapshots: ${messageOf(error)}`));
    return done.then(() => saved);
  }

  /** Saves a collection's snapshot before its index is dropped, if it has unsaved changes (caller is on the queue). */
  async saveBeforeDrop(name: string): Promise<void> {
    if (this.unsaved.has(name)) await this.saveOne(name);
    this.unsaved.delete(name);
  }

  /** Forgets a deleted collection: nothing pending, and its stored snapshot (it can never match again) deleted. */
  async discard(name: string, kind: LoadedCollection["kind"] | undefined): Promise<void> {
    this.unsaved.delete(name);
    if (kind === undefined || kind === "mcp" || !this.enabled) return;
    // A re-created collection gets a new version: free the space.
    await deleteSnapshot(this.options.store, name).catch((error: unknown) => this.options.log(`toolsearch serve: could not delete the snapshot of ${name}: ${messageOf(error)}`));
  }

  /** Cancels the pending timer (`close` saves what is pending itself). */
  stop(): void {
    clearTimeout(this.timer);
  }

  /**
   * Saves one collection's snapshot at the version the store has now, unless that version holds changes not applied
   * yet (see the module comment). True when this replica wrote it (another replica may have saved the same version
   * first: then nothing is encoded).
   */
  private async saveOne(name: string): Promise<boolean> {
    const collection = this.options.find(name);
    const index = collection?.kind === "mcp" ? undefined : collection?.tools ?? collection?.docs;
    if (!index) {
      this.unsaved.delete(name);
      return false;
    }
    const record = await this.options.store.getCollection(name);
    if (!record || record.version > this.options.appliedSeq()) return false;
    this.unsaved.delete(name);
    return saveSnapshot(this.options.store, name, record.version, () => index.snapshot());
  }
}
