/**
 * Builds a collection's index from the store, without holding anything itself: from its stored snapshot caught up
 * with the change log since the snapshot's version, or from its items; for an `mcp` collection, its gateway (through
 * the gateway host, which knows how upstreams start). What is built is handed back, never swapped in: that is
 * `ChangeApplier.swapIn`'s job (src/server/collections/apply-changes.ts).
 *
 * A damaged, incompatible or unreplayable snapshot is logged, never fatal: the store has the items. A stored item
 * that no longer passes the index's rules is reported and skipped.
 *
 * @example
 * const built = await loader.build(record); // { collection, saved }: saved false → schedule a snapshot
 */
import type { Document } from "../../catalog/documents.js";
import type { Embedder } from "../../embeddings/embedder.js";
import { ToolsearchError } from "../../errors.js";
import { DocumentIndex } from "../../indexes/document-index.js";
import { ToolIndex } from "../../indexes/tool-index.js";
import type { Gateway } from "../../mcp/gateway.js";
import type { CollectionRecord, ItemRecord, Store } from "../../store/types.js";
import { readSnapshot } from "../snapshots.js";
import { itemChangesSince, touchedKeys } from "./change-plan.js";
import { emptyEntry, type LoadedCollection, messageOf, refreshFrom } from "./types.js";

/** Touched keys re-read from the store at once when applying changes. */
const READ_AHEAD = 16;

/** What `CollectionLoader` needs. */
export interface LoaderOptions {
  store: Store;
  embedder?: Embedder;
  /** Read stored snapshots (`Collections`' `snapshots !== false`). */
  snapshots: boolean;
  /** Changes read per page while catching a snapshot up. */
  pageSize?: number;
  log: (line: string) => void;
  /** Starts an `mcp` collection's gateway (`GatewayHost.startMcp`). */
  startMcp: (record: CollectionRecord) => Promise<Gateway>;
}

/** A built collection and whether its index is exactly a stored snapshot (else one is due). */
export interface Built {
  collection: LoadedCollection;
  saved: boolean;
}

export class CollectionLoader {
  constructor(private readonly options: LoaderOptions) {}

  /** Builds a collection from its stored snapshot (`fromSnapshot`) or from its items; see the module comment. */
  async build(record: CollectionRecord, fromSnapshot = true): Promise<Built> {
    const next = emptyEntry(record);
    if (record.kind === "mcp") {
      next.gateway = await this.options.startMcp(record);
      next.tools = next.gateway.index;
      return { collection: next, saved: false };
    }
    if (fromSnapshot) {
      const restored = await this.restore(record, next);
      if (restored !== undefined) {
        next.source = "snapshot";
        return { collection: next, saved: restored };
      }
    }
    const items = await this.options.store.listItems(record.name);
    if (record.kind === "tools") next.tools = new ToolIndex([], { embedder: this.options.embedder });
    else next.docs = new DocumentIndex([], { embedder: this.options.embedder });
    for (const item of items) this.indexItem(next, item);
    return { collection: next, saved: false };
  }

  /**
   * Re-reads `keys` of a collection from the store into its index (an absent item is removed from it). False when
   * the collection is gone from the store. An `mcp` collection's tools come from its upstreams: nothing to read.
   */
  async reindex(collection: LoadedCollection, keys: Set<string>): Promise<boolean> {
    if (collection.kind === "mcp") return true;
    const all = [...keys];
    // A few keys at a time: over a network store a big batch would otherwise cost one round trip per key.
    for (let start = 0; start < all.length; start += READ_AHEAD) {
      const chunk = all.slice(start, start + READ_AHEAD);
      let items: Array<ItemRecord | undefined>;
      try {
        items = await Promise.all(chunk.map((key) => this.options.store.getItem(collection.name, key)));
      } catch (error) {
        if (error instanceof ToolsearchError && error.code === "unknown_collection") return false;
        throw error;
      }
      chunk.forEach((key, i) => {
        const item = items[i];
        if (item) this.indexItem(collection, item);
        else if (collection.tools) collection.tools.remove(key);
        else collection.docs?.remove(key);
      });
    }
    collection.bytes = undefined;
    return true;
  }

  /**
   * Fills `next` from the collection's stored snapshot, caught up with the change log from the snapshot's version:
   * true when the index is exactly the snapshot, false when changes were replayed onto it (a new snapshot is due),
   * undefined when there is none or it cannot be used (the caller rebuilds from the items).
   */
  private async restore(record: CollectionRecord, next: LoadedCollection): Promise<boolean | undefined> {
    if (!this.options.snapshots) return undefined;
    const { store, log } = this.options;
    try {
      const saved = await readSnapshot(store, record.name);
      if (!saved) return undefined;
      const changes = saved.version > record.version ? "rebuild" : await itemChangesSince(store, record.name, saved.version, record.version, this.options.pageSize);
      if (changes === "rebuild") {
        log(`toolsearch serve: the snapshot of ${record.name} is of version ${saved.version}, the collection is at ${record.version} and the change log cannot bring it there; rebuilding it`);
        return undefined;
      }
      const options = { embedder: this.options.embedder };
      if (record.kind === "tools") next.tools = ToolIndex.fromSnapshot(saved.bytes, options);
      else next.docs = DocumentIndex.fromSnapshot(saved.bytes, options);
      next.version = saved.version;
      if (changes.length === 0) return true;
      // Gone meanwhile: the change log's delete reaches the replica next and drops it.
      if (await this.reindex(next, touchedKeys(changes))) {
        const current = await store.getCollection(record.name);
        if (current) refreshFrom(next, current);
      }
      return false;
    } catch (error) {
      next.tools = next.docs = undefined;
      log(`toolsearch serve: the snapshot of ${record.name} cannot be used (${messageOf(error)}); rebuilding it`);
      // Dropped, or it would stand for this version forever (one writer per version) and every load would rebuild:
      // the rebuilt index is saved in its place (e.g. after an upgrade that changed the snapshot format).
      await store.deleteSnapshots(record.name).catch((failure: unknown) => log(`toolsearch serve: could not delete the snapshot of ${record.name}: ${messageOf(failure)}`));
      return undefined;
    }
  }

  /** Indexes one stored item; one that no longer passes the index's rules is reported and skipped, not fatal. */
  private indexItem(collection: LoadedCollection, item: ItemRecord): void {
    try {
      if (collection.tools) collection.tools.replace(item.body);
      else collection.docs?.replace(item.body as Document);
    } catch (error) {
      this.options.log(`toolsearch serve: ${collection.name}/${item.key} is stored but cannot be indexed: ${messageOf(error)}`);
    }
  }
}
