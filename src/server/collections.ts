/**
 * The in-memory side of the service: one index (or MCP gateway) per collection of the store, kept in step with it.
 * `Collections` composes the parts in src/server/collections/, each with one job, and is what the rest of the
 * service talks to:
 *
 * - `change-follower.ts` reads the change log and `change-plan.ts` plans what a page of it asks for;
 * - `apply-changes.ts` applies plans, swaps built collections in whole, evicts and drops (the only code that changes
 *   what is loaded);
 * - `loader.ts` builds an index from a stored snapshot or from the items (it holds nothing);
 * - `resident-set.ts` is what is known and what is loaded, least recently used first, with pins, against the budget;
 * - `loads.ts` says when collections load: the warm-up list, and one shared load on a first request;
 * - `snapshot-schedule.ts` says when snapshots are saved; `gateway-host.ts` hosts the MCP gateways;
 *   `usage-signals.ts` feeds curation and the learned signal; `writes.ts` is how requests write.
 *
 * They share one serial queue (`serial-queue.ts`): applying changes, swapping in and saving snapshots take turns,
 * which is what keeps a snapshot's version right.
 *
 * The store is the source of truth. `start` learns every collection from it and loads the ones to warm up (all of them
 * by default; with `preload` a list, the others on their first request); afterwards every change (ours, or another
 * replica's) reaches the indexes only through the change log, by re-reading current state, so applying a change twice
 * does no harm and a replica that missed notifications catches up by calling `sync` again. Request handlers write
 * through `writes`, which writes to the store and then syncs, so that a client reads its own writes; nothing changes
 * an index directly.
 *
 * @example
 * const collections = new Collections(store, { embedder });
 * await collections.start();
 * const crm = collections.get("crm"); // { kind: "tools", tools: ToolIndex, … }
 * await collections.writes.putItem("crm", { key: "send_email", body });
 * await collections.close(); // stop following, save pending snapshots, close gateways
 *
 * Snapshots, loads on first use and eviction under `memoryBudgetBytes`, and MCP gateways that outlive a replace are
 * described in the modules that do them; docs/service.md describes them for operators.
 */
import { ToolsearchError } from "../errors.js";
import type { Gateway } from "../mcp/gateway.js";
import { unknownCollection } from "../store/records.js";
import type { Store, Unsubscribe, UsageEvent } from "../store/types.js";
import { ChangeApplier } from "./collections/apply-changes.js";
import { ChangeFollower, type ReplicaPosition } from "./collections/change-follower.js";
import { GatewayHost } from "./collections/gateway-host.js";
import { CollectionLoader } from "./collections/loader.js";
import { Loads, warmUpList } from "./collections/loads.js";
import { ResidentSet } from "./collections/resident-set.js";
import { SerialQueue } from "./collections/serial-queue.js";
import { SnapshotSchedule } from "./collections/snapshot-schedule.js";
import type { CollectionEvent, CollectionsOptions, LoadedCollection } from "./collections/types.js";
import { UsageSignals } from "./collections/usage-signals.js";
import { CollectionWrites } from "./collections/writes.js";

export { manifestOwner } from "./collections/gateway-host.js";
export type { ReplicaPosition } from "./collections/change-follower.js";
export type { CollectionEvent, CollectionsOptions, LoadedCollection } from "./collections/types.js";

export class Collections {
  /** How requests write: to the store, then `sync` (src/server/collections/writes.ts). */
  readonly writes: CollectionWrites;
  private readonly options: CollectionsOptions;
  private readonly log: (line: string) => void;
  private readonly queue = new SerialQueue();
  private readonly residents: ResidentSet;
  private readonly follower: ChangeFollower;
  private readonly gateways: GatewayHost;
  private readonly signals: UsageSignals;
  private readonly snapshots: SnapshotSchedule;
  private readonly loads: Loads;
  private readonly listeners = new Set<(event: CollectionEvent) => void>();
  private started = false;

  constructor(
    readonly store: Store,
    options: CollectionsOptions = {},
  ) {
    this.options = options;
    const log = (this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`)));
    const { queue } = this;
    const emit = (event: CollectionEvent) => {
      for (const listener of this.listeners) listener(event);
    };
    const residents = (this.residents = new ResidentSet(options.memoryBudgetBytes));
    const find = (name: string) => residents.find(name);
    const signals = (this.signals = new UsageSignals({ store, log, find }));
    const gateways = (this.gateways = new GatewayHost({ store, log, upstream: options.upstream, exposeFound: options.exposeFound, trustUpdates: options.trustUpdates, screenResults: options.screenResults, usage: (name) => signals.hookFor(name) }));
    const snapshots = (this.snapshots = new SnapshotSchedule({ store, queue, snapshots: options.snapshots, find, appliedSeq: () => this.follower.appliedSeq, log }));
    const loader = new CollectionLoader({ store, embedder: options.embedder, snapshots: snapshots.enabled, pageSize: options.pageSize, log, startMcp: (record) => gateways.startMcp(record) });
    const loadNew = (options.preload ?? "all") === "all";
    const applier = new ChangeApplier({ store, residents, loader, gateways, signals, snapshots, loadNew, pageSize: options.pageSize, log, emit });
    this.follower = new ChangeFollower({ store, queue, target: applier, pageSize: options.pageSize, log });
    this.loads = new Loads({ store, queue, residents, loader, applier, log, emit });
    this.writes = new CollectionWrites(store, () => this.sync());
  }

  /** Learns every collection, loads the ones to warm up (`preload`), then follows the change log. */
  async start(onProgress?: (done: number, total: number, name: string) => void): Promise<void> {
    await this.follower.begin();
    const records = await this.store.listCollections();
    for (const record of records) this.residents.know(record);
    const warm = warmUpList(records, this.options.preload, this.log);
    let done = 0;
    for (const record of warm) {
      await this.loads.load(record.name);
      onProgress?.(++done, warm.length, record.name);
    }
    this.follower.follow();
    await this.sync();
    this.started = true;
  }

  /** Reports loads and evictions (metrics); returns the way to stop. */
  observe(listener: (event: CollectionEvent) => void): Unsubscribe {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A request starts using a collection: it is not dropped for the budget until `release`. */
  pin(name: string): void {
    this.residents.pin(name);
  }

  release(name: string): void {
    this.residents.unpin(name);
  }

  /** Bytes the loaded indexes hold, as they count them. */
  get loadedBytes(): number {
    return this.residents.loadedBytes;
  }

  /** Number of collections with an index in memory. */
  get loadedCount(): number {
    return this.residents.loadedCount;
  }

  /** Whether the warm-up list has been loaded (`/readyz`). */
  get ready(): boolean {
    return this.started;
  }

  /** `seq` of the last change applied. */
  get appliedSeq(): number {
    return this.follower.appliedSeq;
  }

  /** When this replica last applied a change (ms since the epoch); undefined before its first. */
  get lastAppliedAt(): number | undefined {
    return this.follower.lastAppliedAt;
  }

  /** `seq` of the last change the store has committed, read now (replica lag: this minus `appliedSeq`). */
  headSeq(): Promise<number> {
    return this.follower.headSeq();
  }

  /** Applied and head change sequence and the time of the last applied change, together. */
  position(): Promise<ReplicaPosition> {
    return this.follower.position();
  }

  /**
   * A loaded collection, or `unknown_collection` (`not_ready` while collections are still loading, or for one of the
   * store this replica has not loaded yet: `resolve` loads it).
   */
  get(name: string): LoadedCollection {
    const found = this.residents.find(name);
    if (!found && (!this.started || this.residents.knows(name))) throw new ToolsearchError("not_ready", "The service is still loading its collections; retry shortly.");
    if (!found) throw unknownCollection(name);
    return found;
  }

  /** A loaded collection, or undefined. */
  find(name: string): LoadedCollection | undefined {
    return this.residents.find(name);
  }

  /**
   * Like `get`, but a collection of the store not loaded yet is loaded, and a name not known yet is looked for once
   * more after catching up with the store: another replica may have created it a moment ago.
   */
  async resolve(name: string): Promise<LoadedCollection> {
    if (!this.started) return this.get(name);
    if (!this.residents.isLoaded(name) && !this.residents.knows(name)) await this.sync();
    if (!this.residents.isLoaded(name) && this.residents.knows(name)) await this.loads.load(name);
    const found = this.get(name);
    this.residents.touch(name);
    // What an index holds grows with its first searches (terms decoded, hits' tools materialised): counted again at the
    // next budget check rather than kept from its load.
    found.bytes = undefined;
    return found;
  }

  /** Same as `writes.touch` (kept for callers of the earlier API). */
  touch(name: string): Promise<void> {
    return this.writes.touch(name);
  }

  /** Every collection of the store by name: the loaded ones, and the others as their records (`loaded` false). */
  list(): LoadedCollection[] {
    return this.residents.list();
  }

  /** Number of items a collection serves (for `mcp`: the upstream tools seen so far; for an idle one: the store's count). */
  sizeOf(collection: LoadedCollection): number {
    if (!collection.loaded) return collection.storedSize;
    return collection.tools?.size ?? collection.docs?.size ?? 0;
  }

  /** Applies every change committed so far (queued; a failure is logged and retried by the next call). */
  sync(): Promise<void> {
    return this.follower.sync();
  }

  /** The gateway behind `/mcp/{c}`, created on first use for `tools` and `docs` collections. */
  async gatewayFor(name: string): Promise<Gateway> {
    return this.gateways.gatewayOf(this.get(name));
  }

  /** Records usage events of a collection in the store and in this replica's learned signal (never throws). */
  recordUsage(name: string, events: UsageEvent[]): Promise<void> {
    return this.signals.record(name, events);
  }

  /**
   * Saves the snapshot of every collection changed since its last one, once its index has applied every change to
   * it. Queued with `sync`; resolves to the number saved; failures are logged, not thrown (a snapshot is a cache).
   */
  saveSnapshots(): Promise<number> {
    return this.snapshots.saveAll();
  }

  /** Settles once the work queued so far (changes, swap-ins, snapshot saves) and every load in flight have run. */
  async idle(): Promise<void> {
    await this.loads.settled();
    await this.queue.idle();
  }

  /**
   * Stops following the store, saves pending snapshots and closes every gateway (upstream processes end). The store
   * stays open. For a graceful drain: stop taking requests, then `close`.
   */
  async close(): Promise<void> {
    this.follower.stop();
    this.snapshots.stop();
    if (this.snapshots.enabled) await this.saveSnapshots();
    await this.queue.idle();
    const loaded = this.residents.loadedCollections();
    this.residents.unloadAll();
    await this.gateways.closeAll(loaded);
  }
}
