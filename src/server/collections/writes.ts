/**
 * How a request writes to a collection: to the store (the source of truth), then `sync` so that the writer reads its
 * own writes on this replica. Indexes change only through the change log, the same way on every replica; no request
 * path writes to an index, and none needs to remember to sync (routes use `collections.writes`, never the store's
 * write methods).
 *
 * A write the store refuses (`precondition_failed`, `unknown_collection`, …) throws before anything is synced; a
 * committed write whose sync fails (store unreachable a moment later) still answers: the failure is logged and the
 * next sync applies it.
 *
 * @example
 * const { created } = await collections.writes.putItem("crm", { key: "send_email", body }, { ifMatch });
 */
import { unknownCollection } from "../../store/records.js";
import type { CollectionKind, CurationKind, ItemInput, Store, WriteOptions } from "../../store/types.js";

/** The store's write methods the routes use. */
type Writer = Pick<Store, "putCollection" | "deleteCollection" | "putItem" | "deleteItem" | "batch" | "putCuration" | "getCollection">;

export class CollectionWrites {
  /** `sync`: applies every change committed so far to this replica (`Collections.sync`). */
  constructor(
    private readonly store: Writer,
    private readonly sync: () => Promise<void>,
  ) {}

  /** Creates or replaces a whole collection atomically. */
  putCollection(name: string, kind: CollectionKind, config: Record<string, unknown>, items: ItemInput[]): ReturnType<Store["putCollection"]> {
    return this.synced(this.store.putCollection(name, kind, config, items));
  }

  /** Deletes a collection and its items; false when there was none. */
  deleteCollection(name: string): Promise<boolean> {
    return this.synced(this.store.deleteCollection(name));
  }

  putItem(collection: string, item: ItemInput, options?: WriteOptions): ReturnType<Store["putItem"]> {
    return this.synced(this.store.putItem(collection, item, options));
  }

  /** False when there was no such item. */
  deleteItem(collection: string, key: string, options?: WriteOptions): Promise<boolean> {
    return this.synced(this.store.deleteItem(collection, key, options));
  }

  /** Upserts and deletes in one transaction, all or nothing. */
  batch(collection: string, upsert: ItemInput[], remove: string[]): ReturnType<Store["batch"]> {
    return this.synced(this.store.batch(collection, upsert, remove));
  }

  /** Replaces a collection's synonyms, rules or learning switch. */
  putCuration(collection: string, kind: CurationKind, value: unknown): Promise<void> {
    return this.synced(this.store.putCuration(collection, kind, value));
  }

  /**
   * Announces a change to a collection that lives outside its record (a review decision on its pinned definitions):
   * the collection is written again as it is, so every replica reloads it, and with it the pins, from the store.
   */
  async touch(name: string): Promise<void> {
    const record = await this.store.getCollection(name);
    if (!record) throw unknownCollection(name);
    await this.synced(this.store.putCollection(name, record.kind, record.config, []));
  }

  /** The write's answer, once this replica has applied it. */
  private async synced<T>(write: Promise<T>): Promise<T> {
    const result = await write;
    await this.sync();
    return result;
  }
}
