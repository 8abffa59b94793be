/**
 * The one place that changes what a replica holds, always on the serial queue: it applies the change follower's
 * plans, swaps built collections in whole (searches never see a half index), drops idle ones to make room under the
 * memory budget, and forgets deleted ones. Every change is applied by re-reading current state from the store, so
 * applying one twice does no harm.
 *
 * A collection this replica has not loaded only has its record re-read: its next load starts from the store. With
 * `preload: "all"` a collection created meanwhile is loaded at once.
 *
 * @example
 * const applier = new ChangeApplier({ store, residents, loader, gateways, signals, snapshots, log, emit });
 * await applier.applyPlan(planPage(changes)); // on the queue
 * await applier.swapIn(await loader.build(record)); // on the queue
 */
import type { Store } from "../../store/types.js";
import { MB } from "../collection-cache.js";
import { type ChangePlan, itemChangesSince, touchedKeys } from "./change-plan.js";
import type { GatewayHost } from "./gateway-host.js";
import type { Built, CollectionLoader } from "./loader.js";
import { bytesOf, type ResidentSet } from "./resident-set.js";
import type { SnapshotSchedule } from "./snapshot-schedule.js";
import { type CollectionEvent, type LoadedCollection, refreshFrom } from "./types.js";
import type { UsageSignals } from "./usage-signals.js";

/** What `ChangeApplier` needs: the other parts of `Collections`. */
export interface ChangeApplierParts {
  store: Store;
  residents: ResidentSet;
  loader: CollectionLoader;
  gateways: GatewayHost;
  signals: UsageSignals;
  snapshots: SnapshotSchedule;
  /** Load a collection as soon as it is created (`preload: "all"`). */
  loadNew: boolean;
  pageSize?: number;
  log: (line: string) => void;
  emit: (event: CollectionEvent) => void;
}

export class ChangeApplier {
  constructor(private readonly parts: ChangeApplierParts) {}

  /** Applies a page of changes by re-reading what it touched (see `planPage`). */
  async applyPlan(plan: ChangePlan): Promise<void> {
    const { residents, signals } = this.parts;
    for (const name of plan.whole) await this.reload(name);
    for (const [name, keys] of plan.keys) {
      const collection = residents.find(name);
      if (collection) await this.applyItems(collection, keys);
      else await this.reload(name);
    }
    for (const name of plan.curated) {
      const collection = residents.find(name);
      if (collection) await signals.applyCuration(collection);
    }
  }

  /** Re-reads every collection from the store (the log was pruned past this replica's position). */
  async reloadAll(): Promise<void> {
    const { store, residents, loader } = this.parts;
    const records = await store.listCollections();
    const names = new Set(records.map((record) => record.name));
    for (const name of residents.knownNames()) if (!names.has(name)) await this.drop(name);
    for (const record of records) {
      residents.know(record);
      if (residents.isLoaded(record.name)) await this.swapIn(await loader.build(record));
    }
  }

  /**
   * Swaps a built collection in whole. Changes the log applied while it was being built (to the record only) are
   * applied to it first, and it is closed when the collection was deleted meanwhile. Under a memory budget, idle
   * collections are dropped first to make room. Callers are on the queue.
   */
  async swapIn(built: Built): Promise<LoadedCollection | undefined> {
    const { residents, signals, snapshots, gateways } = this.parts;
    const next = built.collection;
    const record = residents.recordOf(next.name);
    if (!record) {
      await next.gateway?.close();
      return undefined;
    }
    let saved = built.saved;
    if (record.version > next.version) saved = (await this.catchUpOne(next)) && saved;
    await this.makeRoom(next);
    await signals.loadLearner(next);
    await signals.applyCuration(next);
    const previous = residents.hold(next);
    if (!saved) snapshots.markUnsaved(next);
    await gateways.replace(previous, next);
    return residents.find(next.name);
  }

  /**
   * Re-reads a collection's record after a change; a loaded one is rebuilt (and, with `loadNew`, a new one loaded),
   * an idle one stays idle.
   */
  private async reload(name: string): Promise<void> {
    const { store, residents, loader } = this.parts;
    const record = await store.getCollection(name);
    if (!record) return this.drop(name);
    const known = residents.knows(name);
    residents.know(record);
    const eager = !known && this.parts.loadNew;
    if (residents.isLoaded(name) || eager) await this.swapIn(await loader.build(record, false));
  }

  /** Re-reads touched items into a loaded (or about to be) collection, then its record; a snapshot is then due. */
  private async applyItems(collection: LoadedCollection, keys: Set<string>): Promise<void> {
    const { store, residents, loader, snapshots } = this.parts;
    if (collection.kind === "mcp") return; // Its tools come from its upstreams, not from items.
    if (!(await loader.reindex(collection, keys))) return this.drop(collection.name);
    const record = await store.getCollection(collection.name);
    if (record) {
      residents.know(record);
      refreshFrom(collection, record);
    }
    snapshots.markUnsaved(collection);
  }

  /**
   * Brings a built collection up to date with the change log from its version: changed items are re-read; a
   * collection replaced whole is rebuilt from its items. Returns whether it is still exactly what it was built as.
   */
  private async catchUpOne(collection: LoadedCollection): Promise<boolean> {
    const { store, residents, loader } = this.parts;
    const changes = await itemChangesSince(store, collection.name, collection.version, residents.recordOf(collection.name)?.version ?? 0, this.parts.pageSize);
    if (changes === "rebuild") {
      const record = await store.getCollection(collection.name);
      if (!record) return true;
      await collection.gateway?.close(); // an mcp collection's first gateway: the rebuilt one replaces it
      Object.assign(collection, (await loader.build(record, false)).collection);
      return false;
    }
    // Curation changes name no item, but the record's version still moves past them.
    if (changes.length > 0) await this.applyItems(collection, touchedKeys(changes));
    return true;
  }

  /** Drops least recently used idle collections until `next` fits the memory budget (or nothing idle is left). */
  private async makeRoom(next: LoadedCollection): Promise<void> {
    const { residents, gateways, log } = this.parts;
    for (const name of residents.roomFor(next, (held) => gateways.isBusy(held))) await this.evict(name);
    const total = residents.overBudget(next);
    if (total !== undefined) {
      log(`toolsearch serve: loading ${next.name} (${(bytesOf(next) / MB).toFixed(1)} MB) takes the loaded indexes to ${(total / MB).toFixed(1)} MB, over the memory budget of ${(residents.budget! / MB).toFixed(1)} MB: nothing idle is left to drop`);
    }
  }

  /** Forgets a loaded collection's index (its snapshot is saved first when it has unsaved changes). */
  private async evict(name: string): Promise<void> {
    await this.parts.snapshots.saveBeforeDrop(name);
    const collection = this.parts.residents.unload(name);
    // An mcp collection's upstreams stop with its gateway; they start again on the next call after it is reloaded.
    await collection?.gateway?.close();
    this.parts.emit({ type: "evict", name });
  }

  /** Forgets a collection the store no longer has: its index, record, gateway, and what it kept in the store. */
  private async drop(name: string): Promise<void> {
    const { residents, gateways, snapshots } = this.parts;
    const kind = residents.find(name)?.kind ?? residents.recordOf(name)?.kind;
    const gone = residents.forget(name);
    await gateways.retire(gone);
    await snapshots.discard(name, kind);
  }
}
