/**
 * The in-memory side of the service: one index (or MCP gateway) per collection of the store, kept in step with it.
 *
 * The store is the source of truth. `start` learns every collection from it and loads the ones to warm up (all of them
 * by default; with `preload` a list, the others on their first request); afterwards every change (ours, or
 * another replica's) reaches the indexes only through the change log: `sync` reads the changes after the last one
 * applied and re-reads the current state of each touched key, so applying a change twice does no harm and a replica
 * that missed notifications catches up by calling `sync` again. Request handlers write to the store, then `await
 * sync()` so that a client reads its own writes; they never change an index directly.
 *
 * @example
 * const collections = new Collections(store, { embedder });
 * await collections.start();
 * const crm = collections.get("crm"); // { kind: "tools", tools: ToolIndex, … }
 *
 * Snapshots: a `tools` or `docs` collection's index is also saved to the store as a snapshot tagged with the
 * collection's version (src/server/snapshots.ts), a while after it changes and at `close`, by one replica per version.
 * A load reads the snapshot instead of re-analyzing every item and catches up with the change log from its version (a
 * changed item is re-read; a collection replaced whole, or a log pruned past the snapshot, rebuilds it); a damaged or
 * incompatible snapshot is logged and the collection is rebuilt from its items.
 *
 * Load on first use and eviction: `resolve` loads a collection not in memory, one load shared by concurrent callers,
 * outside the change queue so that other collections keep answering (only the final swap-in is queued, and catches up
 * with changes applied meanwhile). With `memoryBudgetBytes`, a load that would take the loaded indexes past the budget
 * first drops the least recently used idle ones (src/server/collection-cache.ts); a dropped collection is only
 * forgotten by this replica and comes back from its snapshot on its next request.
 *
 * MCP: each collection's gateway (behind `/mcp/{c}`) outlives a replace of the collection: the open sessions are
 * handed over to the new gateway and see the new tools; deleting the collection ends them. An `mcp` collection keeps
 * its upstreams' manifests in the store (owner `collection:<name>`), so after a restart it is searchable without
 * starting any server, and a server starts on the first call that needs it (SPEC §11).
 */
import type { Document } from "../catalog/documents.js";
import type { Embedder } from "../embeddings/embedder.js";
import { ToolsearchError } from "../errors.js";
import { DocumentIndex } from "../indexes/document-index.js";
import { ToolIndex } from "../indexes/tool-index.js";
import { parseGatewayConfig } from "../mcp/config.js";
import type { Gateway, GatewayOptions, GatewayUsage } from "../mcp/gateway.js";
import { deleteLaunchSnapshots } from "../mcp/launch-snapshot.js";
import { unknownCollection } from "../store/records.js";
import { CollectionCache, MB } from "./collection-cache.js";
import { deleteSnapshot, readSnapshot, saveSnapshot } from "./snapshots.js";
import type { Change, CollectionKind, CollectionRecord, ItemRecord, Store, Unsubscribe, UsageEvent } from "../store/types.js";
import { CURATION_KINDS, type Learning, type Rules, type Synonyms } from "../usage/curation.js";
import { learnedFromEvents, USAGE_RETENTION, type UsageLearner } from "../usage/events.js";

/** Options of `Collections`. */
export interface CollectionsOptions {
  /** Shared by every index, so vectors come from (and go to) the store. Default: each index's own default. */
  embedder?: Embedder;
  /** Upstream timeouts, restarts and idle stop (`idleStopMs`) for `mcp` collections. */
  upstream?: GatewayOptions["upstream"];
  /** `--expose-found`: a session's searches add the upstream tools found to that session's tool list. */
  exposeFound?: boolean;
  /** `--trust-updates`: `mcp` collections serve changed upstream definitions at once (flagged ones are still held). */
  trustUpdates?: boolean;
  /** Where problems with stored items or upstreams are reported (default: stderr). */
  log?: (line: string) => void;
  /** Changes read per page while catching up (default 1000). */
  pageSize?: number;
  /**
   * Index snapshots of `tools` and `docs` collections in the store: `false` neither reads nor writes them;
   * `saveDelayMs` is how long after the last change a snapshot is saved (default 5000), so a burst of writes costs one.
   */
  snapshots?: false | { saveDelayMs?: number };
  /**
   * Which collections `start` loads: `"all"` (the default), or a warm-up list (`serve --preload NAME…`,
   * `--preload-recent N`: the N most recently changed); the others load on their first request.
   */
  preload?: "all" | { names?: string[]; recent?: number };
  /**
   * Bytes the loaded indexes may hold (`serve --memory-budget MB`), as they count them (`ToolIndex.memoryBytes`);
   * past it the least recently used idle collections are dropped. Default: no bound.
   */
  memoryBudgetBytes?: number;
}

/** What happened to a collection in memory, for metrics. */
export type CollectionEvent =
  | { type: "load"; name: string; seconds: number; source: "snapshot" | "rebuild" }
  | { type: "evict"; name: string };

/** One collection as served: its record and the index that answers for it. */
export interface LoadedCollection {
  name: string;
  kind: CollectionKind;
  /** `seq` of the last change applied to it. */
  version: number;
  updatedAt: string;
  /** Tools of a `tools` collection, or the live upstream tools of an `mcp` one. */
  tools?: ToolIndex;
  docs?: DocumentIndex;
  /** The MCP gateway behind `/mcp/{c}`: started at load for `mcp`, on first use (`gatewayFor`) for the others. */
  gateway?: Gateway;
  /** The stored configuration (for `mcp`: `{mcpServers, …}`). */
  config: Record<string, unknown>;
  /** How its index was last loaded: from a stored snapshot, or built from its items (or its upstreams). */
  source: "snapshot" | "rebuild";
  /** Tools: what its usage events have taught (fed by `recordUsage`, rebuilt from the store at load). */
  learner?: UsageLearner;
  /** The collection's learned signal is switched off (`PUT …/learning {"enabled": false}`). */
  learningOff?: boolean;
  /** False for a collection of the store that this replica has not loaded (or has dropped): it has no index. */
  loaded: boolean;
  /** Items as the store counts them (what an idle collection reports). */
  storedSize: number;
  /** Bytes its index holds (`memoryBytes`), undefined until counted again after a change. */
  bytes?: number;
}

/**
 * The MCP gateway (and with it the MCP SDK), imported when a collection first needs one: a replica that serves no
 * MCP session and no `mcp` collection never loads it, which shortens its start-up.
 */
function gatewayModule(): Promise<typeof import("../mcp/gateway.js")> {
  return import("../mcp/gateway.js");
}

/** Touched keys re-read from the store at once when applying changes. */
const READ_AHEAD = 16;

export class Collections {
  private readonly loaded = new Map<string, LoadedCollection>();
  /** Every collection of the store, loaded or not, as last read. */
  private readonly records = new Map<string, CollectionRecord>();
  /** Loads in flight, so that concurrent first requests share one. */
  private readonly loads = new Map<string, Promise<LoadedCollection | undefined>>();
  private readonly cache: CollectionCache;
  private readonly listeners = new Set<(event: CollectionEvent) => void>();
  private readonly options: CollectionsOptions;
  private readonly log: (line: string) => void;
  private applied = 0;
  private queue: Promise<void> = Promise.resolve();
  private unsubscribe: Unsubscribe | undefined;
  private started = false;
  /** `tools` collections changed since their snapshot was last saved. */
  private readonly unsaved = new Set<string>();
  private saveTimer: NodeJS.Timeout | undefined;
  /** Gateways of `tools` and `docs` collections being created, so that concurrent first sessions share one. */
  private readonly gatewayStarts = new WeakMap<LoadedCollection, Promise<Gateway>>();

  constructor(
    readonly store: Store,
    options: CollectionsOptions = {},
  ) {
    this.options = options;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.cache = new CollectionCache(options.memoryBudgetBytes);
  }

  /** Learns every collection, loads the ones to warm up (`preload`), then follows the change log. */
  async start(onProgress?: (done: number, total: number, name: string) => void): Promise<void> {
    // Read the position first: a change committed while loading is then replayed too (harmless: it re-reads state).
    this.applied = await this.store.latestSeq();
    const records = await this.store.listCollections();
    for (const record of records) this.records.set(record.name, record);
    const warm = this.warmUpList(records);
    let done = 0;
    for (const record of warm) {
      await this.loadShared(record.name);
      onProgress?.(++done, warm.length, record.name);
    }
    this.unsubscribe = this.store.onChange(() => void this.sync());
    await this.sync();
    this.started = true;
  }

  /** The collections `start` loads: every one, or those named and the most recently changed (see `preload`). */
  private warmUpList(records: CollectionRecord[]): CollectionRecord[] {
    const preload = this.options.preload ?? "all";
    if (preload === "all") return records;
    const names = new Set(preload.names ?? []);
    for (const name of names) if (!this.records.has(name)) this.log(`toolsearch serve: --preload ${name}: there is no such collection in the store`);
    const recent = [...records].sort((a, b) => b.version - a.version).slice(0, preload.recent ?? 0);
    for (const record of recent) names.add(record.name);
    return records.filter((record) => names.has(record.name));
  }

  /** Reports loads and evictions (metrics); returns the way to stop. */
  observe(listener: (event: CollectionEvent) => void): Unsubscribe {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A request starts using a collection: it is not dropped for the budget until `release`. */
  pin(name: string): void {
    this.cache.pin(name);
  }

  release(name: string): void {
    this.cache.unpin(name);
  }

  /** Bytes the loaded indexes hold, as they count them. */
  get loadedBytes(): number {
    let total = 0;
    for (const collection of this.loaded.values()) total += this.bytesOf(collection);
    return total;
  }

  /** Number of collections with an index in memory. */
  get loadedCount(): number {
    return this.loaded.size;
  }

  /** Whether the warm-up list has been loaded (`/readyz`). */
  get ready(): boolean {
    return this.started;
  }

  /** The last change applied. */
  get appliedSeq(): number {
    return this.applied;
  }

  /**
   * A loaded collection, or `unknown_collection` (`not_ready` while collections are still loading, or for one of the
   * store this replica has not loaded yet: `resolve` loads it).
   */
  get(name: string): LoadedCollection {
    const found = this.loaded.get(name);
    if (!found && (!this.started || this.records.has(name))) throw new ToolsearchError("not_ready", "The service is still loading its collections; retry shortly.");
    if (!found) throw unknownCollection(name);
    return found;
  }

  /** A loaded collection, or undefined. */
  find(name: string): LoadedCollection | undefined {
    return this.loaded.get(name);
  }

  /**
   * Like `get`, but a name not loaded yet is looked for once more after catching up with the store: another replica
   * may have created it a moment ago.
   */
  async resolve(name: string): Promise<LoadedCollection> {
    if (!this.started) return this.get(name);
    if (!this.loaded.has(name) && !this.records.has(name)) await this.sync();
    if (!this.loaded.has(name) && this.records.has(name)) await this.loadShared(name);
    const found = this.get(name);
    this.cache.touch(name);
    // What an index holds grows with its first searches (terms decoded, hits' tools materialised): counted again at the
    // next budget check rather than kept from its load.
    found.bytes = undefined;
    return found;
  }

  /**
   * Announces a change to a collection that lives outside its record (a review decision on its pinned definitions):
   * the collection is written again as it is, so every replica reloads it, and with it the pins, from the store.
   */
  async touch(name: string): Promise<void> {
    const record = await this.store.getCollection(name);
    if (!record) throw unknownCollection(name);
    await this.store.putCollection(name, record.kind, record.config, []);
    await this.sync();
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

  /** Number of items a collection serves (for `mcp`: the upstream tools seen so far; for an idle one: the store's count). */
  sizeOf(collection: LoadedCollection): number {
    if (!collection.loaded) return collection.storedSize;
    return collection.tools?.size ?? collection.docs?.size ?? 0;
  }

  /**
   * Applies every change committed so far. Calls are queued, so changes apply one page at a time, in order; a
   * failure (store unreachable) is reported and retried by the next call, never lost.
   */
  sync(): Promise<void> {
    this.queue = this.queue.then(() => this.catchUp()).catch((error: unknown) => {
      this.log(`toolsearch serve: could not apply changes after seq ${this.applied}: ${error instanceof Error ? error.message : String(error)}`);
    });
    return this.queue;
  }

  /** The gateway behind `/mcp/{c}`, created on first use for `tools` and `docs` collections. */
  async gatewayFor(name: string): Promise<Gateway> {
    return this.gatewayOf(this.get(name));
  }

  private gatewayOf(collection: LoadedCollection): Promise<Gateway> {
    if (collection.gateway) return Promise.resolve(collection.gateway);
    let starting = this.gatewayStarts.get(collection);
    if (!starting) {
      starting = gatewayModule()
        .then(({ Gateway }) => Gateway.start({
          catalog: collection.tools, docs: collection.docs, docsCollection: collection.name, exposeFound: this.options.exposeFound, log: this.log,
          usage: collection.tools && this.usageOf(collection.name),
        }))
        .then((gateway) => (collection.gateway = gateway));
      this.gatewayStarts.set(collection, starting);
    }
    return starting;
  }

  /** The gateway a collection has or is creating, without creating one. */
  private async existingGateway(collection: LoadedCollection | undefined): Promise<Gateway | undefined> {
    return collection && (collection.gateway ?? (await this.gatewayStarts.get(collection)));
  }

  /**
   * Saves the snapshot of every `tools` collection changed since its last one, once the index has applied every
   * change to it (else it is left for the next call). Queued with `sync`, so no change is half-applied meanwhile.
   * Resolves to the number saved; failures are logged, not thrown (a snapshot is only a cache).
   */
  saveSnapshots(): Promise<number> {
    let saved = 0;
    this.queue = this.queue.then(async () => {
      for (const name of [...this.unsaved]) if (await this.saveSnapshot(name)) saved++;
    }).catch((error: unknown) => {
      this.log(`toolsearch serve: could not save index snapshots: ${error instanceof Error ? error.message : String(error)}`);
    });
    return this.queue.then(() => saved);
  }

  /** Stops following the store, saves pending snapshots and closes every gateway (upstream processes end). The store stays open. */
  async close(): Promise<void> {
    this.unsubscribe?.();
    clearTimeout(this.saveTimer);
    if (this.options.snapshots !== false) await this.saveSnapshots();
    await this.queue;
    const gateways = await Promise.all([...this.loaded.values()].map((c) => this.existingGateway(c)));
    this.loaded.clear();
    await Promise.all(gateways.map((gateway) => gateway?.close()));
  }

  private async catchUp(): Promise<void> {
    for (;;) {
      const changes = await this.store.changesSince(this.applied, this.options.pageSize ?? 1000);
      if (changes.length === 0) return;
      // The log has no gaps except pruned ones: it no longer reaches back to our position, so replaying would skip.
      if (changes[0].seq > this.applied + 1) {
        await this.reloadAll();
        continue;
      }
      await this.applyPage(changes);
      this.applied = changes[changes.length - 1].seq;
    }
  }

  /**
   * Applies a page of changes by re-reading current state: a collection touched as a whole is reloaded once, and
   * the other touched keys are re-read once each, whatever the number of changes to them. A collection this replica
   * has not loaded only has its record re-read: its next load starts from the store.
   */
  private async applyPage(changes: Change[]): Promise<void> {
    const whole = new Set<string>();
    const keys = new Map<string, Set<string>>();
    const curated = new Set<string>();
    for (const change of changes) {
      if (change.scope === "curation") curated.add(change.collection);
      else if (change.scope === "collection" || change.key === undefined) whole.add(change.collection);
      else keys.set(change.collection, (keys.get(change.collection) ?? new Set()).add(change.key));
    }
    for (const name of whole) await this.reload(name);
    for (const [name, touched] of keys) {
      if (whole.has(name)) continue;
      const collection = this.loaded.get(name);
      if (collection) await this.applyKeys(collection, touched);
      else await this.reload(name);
    }
    for (const name of curated) {
      const collection = this.loaded.get(name);
      if (collection && !whole.has(name)) await this.applyCuration(collection);
    }
  }

  /** Reads a collection's synonyms and rules from the store into its tool index (stored ones were checked on write). */
  private async applyCuration(collection: LoadedCollection): Promise<void> {
    if (!collection.tools) return;
    try {
      const [synonyms, rules, learning] = await Promise.all(CURATION_KINDS.map((kind) => this.store.getCuration(collection.name, kind)));
      collection.tools.setSynonyms(synonyms as Synonyms | undefined);
      collection.tools.setRules(rules as Rules | undefined);
      collection.learningOff = (learning as Learning | undefined)?.enabled === false;
      collection.tools.setLearned(collection.learningOff ? undefined : collection.learner?.signal);
    } catch (error) {
      if (error instanceof ToolsearchError && error.code === "unknown_collection") return;
      this.log(`toolsearch serve: the curation of ${collection.name} cannot be applied: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Records usage events of a collection: in the store (the source of truth every replica rebuilds from) and in this
   * replica's learned signal at once. Failures are logged, never thrown: usage is not worth failing a search for.
   */
  async recordUsage(name: string, events: UsageEvent[]): Promise<void> {
    const collection = this.loaded.get(name);
    if (collection?.learner) for (const event of events) collection.learner.add(event);
    try {
      await this.store.recordUsage(events);
    } catch (error) {
      this.log(`toolsearch serve: could not record usage of ${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The usage hook of a collection's MCP gateway: its sessions' events are recorded as the REST search's are. */
  private usageOf(name: string): GatewayUsage {
    return { collection: name, record: (events) => void this.recordUsage(name, events) };
  }

  /** Builds a tool collection's learned signal from its stored events, and plugs it into its index. */
  private async loadLearner(collection: LoadedCollection): Promise<void> {
    if (!collection.tools) return;
    const events = await this.store.listUsage(collection.name, USAGE_RETENTION.maxEvents);
    collection.learner = learnedFromEvents(events, collection.tools.analyzer);
    if (!collection.learningOff) collection.tools.setLearned(collection.learner.signal);
  }

  private async applyKeys(collection: LoadedCollection, keys: Set<string>): Promise<void> {
    if (collection.kind === "mcp") return; // Its tools come from its upstreams, not from items.
    const all = [...keys];
    // Re-read a few keys at a time: over a network store a big batch would otherwise cost one round trip per key.
    for (let start = 0; start < all.length; start += READ_AHEAD) {
      const chunk = all.slice(start, start + READ_AHEAD);
      let items: Array<ItemRecord | undefined>;
      try {
        items = await Promise.all(chunk.map((key) => this.store.getItem(collection.name, key)));
      } catch (error) {
        if (error instanceof ToolsearchError && error.code === "unknown_collection") return this.drop(collection.name);
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
    const record = await this.store.getCollection(collection.name);
    if (record) {
      this.records.set(record.name, record);
      collection.version = record.version;
      collection.updatedAt = record.updatedAt;
      collection.storedSize = record.size;
    }
    this.markUnsaved(collection);
  }

  /** Schedules a snapshot of a changed `tools` or `docs` collection, debounced so that a burst of writes saves once. */
  private markUnsaved(collection: LoadedCollection): void {
    if (collection.kind === "mcp" || this.options.snapshots === false) return;
    this.unsaved.add(collection.name);
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => void this.saveSnapshots(), this.options.snapshots?.saveDelayMs ?? 5000);
    // Pending snapshots must not keep a process alive: `close` saves them anyway.
    this.saveTimer.unref();
  }

  /**
   * Saves one collection's snapshot, tagged with its version as read from the store *after* the index was filled: a
   * version above `applied` means changes the index may not hold yet, so nothing is saved until they are applied.
   * Below that bound every change up to the version is applied, and none after it can be in the index (versions only
   * grow), so the index is exactly the collection at that version. True when this replica wrote it (another replica
   * may have saved the same version first: then nothing is encoded).
   */
  private async saveSnapshot(name: string): Promise<boolean> {
    const collection = this.loaded.get(name);
    const index = collection?.kind === "mcp" ? undefined : collection?.tools ?? collection?.docs;
    if (!index) {
      this.unsaved.delete(name);
      return false;
    }
    const record = await this.store.getCollection(name);
    if (!record || record.version > this.applied) return false;
    this.unsaved.delete(name);
    return saveSnapshot(this.store, name, record.version, () => index.snapshot());
  }

  /** Re-reads every collection from the store (after a disconnect longer than the log's retention). */
  private async reloadAll(): Promise<void> {
    this.log(`toolsearch serve: the change log was pruned past seq ${this.applied}; reloading every collection from the store`);
    // The position first, as in `start`: whatever commits while reloading is replayed afterwards.
    const seq = await this.store.latestSeq();
    const records = await this.store.listCollections();
    const names = new Set(records.map((record) => record.name));
    for (const name of [...this.records.keys()]) if (!names.has(name)) await this.drop(name);
    for (const record of records) {
      this.records.set(record.name, record);
      if (this.loaded.has(record.name)) await this.swapIn(await this.build(record));
    }
    this.applied = seq;
  }

  /**
   * Re-reads a collection's record after a change; a loaded one is rebuilt (and, with `preload: "all"`, a new one
   * loaded), an idle one stays idle.
   */
  private async reload(name: string): Promise<void> {
    const record = await this.store.getCollection(name);
    if (!record) return this.drop(name);
    const known = this.records.has(name);
    this.records.set(name, record);
    const eager = !known && (this.options.preload ?? "all") === "all";
    if (this.loaded.has(name) || eager) await this.swapIn(await this.build(record, false));
  }

  private async drop(name: string): Promise<void> {
    const gone = this.loaded.get(name);
    const kind = gone?.kind ?? this.records.get(name)?.kind;
    this.loaded.delete(name);
    this.records.delete(name);
    this.cache.forget(name);
    this.unsaved.delete(name);
    // Its open MCP sessions end here; their next request is told the collection is gone (routes/mcp.ts).
    await (await this.existingGateway(gone))?.close();
    if (gone?.kind === "mcp") {
      await this.forgetManifests(name, serverNames(gone.config));
      await this.store.deletePins(manifestOwner(name)).catch((error: unknown) => this.log(`toolsearch serve: could not delete the pinned definitions of ${name}: ${error instanceof Error ? error.message : String(error)}`));
      await deleteLaunchSnapshots(this.store, manifestOwner(name)).catch((error: unknown) => this.log(`toolsearch serve: could not delete the launch snapshots of ${name}: ${error instanceof Error ? error.message : String(error)}`));
    }
    // Its snapshot can never match again (a re-created collection gets a new version): free the space.
    if (kind !== undefined && kind !== "mcp" && this.options.snapshots !== false) {
      await deleteSnapshot(this.store, name).catch((error: unknown) => this.log(`toolsearch serve: could not delete the snapshot of ${name}: ${error instanceof Error ? error.message : String(error)}`));
    }
  }

  /**
   * Loads a collection of the store that is not in memory; concurrent callers share one load. Undefined when it was
   * deleted meanwhile.
   */
  private loadShared(name: string): Promise<LoadedCollection | undefined> {
    let loading = this.loads.get(name);
    if (!loading) {
      loading = this.loadCold(name).finally(() => this.loads.delete(name));
      this.loads.set(name, loading);
    }
    return loading;
  }

  private async loadCold(name: string): Promise<LoadedCollection | undefined> {
    const started = performance.now();
    const record = await this.store.getCollection(name);
    if (!record) {
      this.records.delete(name);
      return undefined;
    }
    const next = await this.build(record);
    const installed = await this.install(next);
    if (installed) this.emit({ type: "load", name, seconds: (performance.now() - started) / 1000, source: next.source });
    return installed;
  }

  /**
   * Builds a collection's index from its stored snapshot (`fromSnapshot`, caught up with the change log) or from its
   * items, without swapping it in (`install` does).
   */
  private async build(record: CollectionRecord, fromSnapshot = true): Promise<LoadedCollection> {
    const next: LoadedCollection = {
      name: record.name, kind: record.kind, version: record.version, updatedAt: record.updatedAt, config: record.config,
      source: "rebuild", loaded: true, storedSize: record.size,
    };
    const embedder = this.options.embedder;
    if (record.kind === "mcp") {
      const { Gateway } = await gatewayModule();
      next.gateway = await Gateway.start({
        config: parseGatewayConfig(record.config, `collection ${record.name}`),
        // Servers whose stored manifest matches their block are searchable now and start on their first call.
        manifests: this.store,
        owner: manifestOwner(record.name),
        // Upstream definitions are pinned; changes wait for review (routes/review.ts).
        pins: { store: this.store, trustUpdates: this.options.trustUpdates },
        waitForUpstreams: false,
        exposeFound: this.options.exposeFound,
        upstream: this.options.upstream,
        log: this.log,
        usage: this.usageOf(record.name),
      });
      next.tools = next.gateway.index;
      return next;
    }
    if (fromSnapshot && (await this.restore(record, next))) {
      next.source = "snapshot";
      return next;
    }
    const items = await this.store.listItems(record.name);
    if (record.kind === "tools") next.tools = new ToolIndex([], { embedder });
    else next.docs = new DocumentIndex([], { embedder });
    for (const item of items) this.indexItem(next, item);
    return next;
  }

  /**
   * Swaps a built collection in whole (searches never see a half index), queued with the change log: changes the
   * log applied while it was being built (to the record only) are applied to it first, and it is dropped when the
   * collection was deleted meanwhile. Under a memory budget, idle collections are dropped first to make room.
   */
  private install(next: LoadedCollection): Promise<LoadedCollection | undefined> {
    const done = this.queue.then(() => this.swapIn(next));
    this.queue = done.then(() => undefined, (error: unknown) => {
      this.log(`toolsearch serve: could not load ${next.name}: ${error instanceof Error ? error.message : String(error)}`);
    });
    return done;
  }

  /** `install` without the queue, for callers already in it. */
  private async swapIn(next: LoadedCollection): Promise<LoadedCollection | undefined> {
    const record = this.records.get(next.name);
    if (!record) {
      await next.gateway?.close();
      return undefined;
    }
    if (record.version > next.version) await this.catchUpOne(next);
    await this.makeRoom(next);
    await this.loadLearner(next);
    await this.applyCuration(next);
    const previous = this.loaded.get(next.name);
    this.loaded.set(next.name, next);
    this.cache.touch(next.name);
    if (next.source === "rebuild") this.markUnsaved(next);
    await this.replaceGateway(previous, next);
    return this.loaded.get(next.name);
  }

  /**
   * Brings a built collection up to date with the change log from its version: changed items are re-read; a
   * collection replaced whole is rebuilt from its items.
   */
  private async catchUpOne(collection: LoadedCollection): Promise<void> {
    const changes = await this.changesOf(collection.name, collection.version, this.records.get(collection.name)?.version ?? 0);
    if (changes === "rebuild") {
      const record = await this.store.getCollection(collection.name);
      if (!record) return;
      await collection.gateway?.close(); // an mcp collection's first gateway: the rebuilt one replaces it
      Object.assign(collection, await this.build(record, false));
      return;
    }
    const keys = new Set(changes.map((change) => change.key!));
    if (keys.size > 0) await this.applyKeys(collection, keys);
  }

  /**
   * The item changes of one collection after `version` (it is at `target` or later), or "rebuild" when replaying
   * them would not do: the collection was replaced whole, or the log was pruned past `version`.
   */
  private async changesOf(name: string, version: number, target: number): Promise<Change[] | "rebuild"> {
    const first = await this.store.changesSince(version, 1);
    if (first.length > 0 ? first[0].seq > version + 1 : target > version) return "rebuild";
    const out: Change[] = [];
    const page = this.options.pageSize ?? 1000;
    for (let after = version; ;) {
      const changes = await this.store.changesSince(after, page, name);
      if (changes.some((change) => change.scope === "collection" || change.key === undefined)) return "rebuild";
      out.push(...changes);
      if (changes.length < page) return out;
      after = changes[changes.length - 1].seq;
    }
  }

  /** Drops least recently used idle collections until `next` fits the memory budget (or nothing idle is left). */
  private async makeRoom(next: LoadedCollection): Promise<void> {
    if (this.cache.budget === undefined) return;
    const needed = this.bytesOf(next);
    const victims = this.cache.victims(needed, (name) => (name === next.name ? 0 : this.bytesOf(this.loaded.get(name))), (name) => name === next.name || this.busy(name));
    for (const name of victims) await this.evict(name);
    const held = this.loadedBytes - (this.loaded.has(next.name) ? this.bytesOf(this.loaded.get(next.name)) : 0);
    if (held + needed > this.cache.budget) {
      this.log(`toolsearch serve: loading ${next.name} (${(needed / MB).toFixed(1)} MB) takes the loaded indexes to ${((held + needed) / MB).toFixed(1)} MB, over the memory budget of ${(this.cache.budget / MB).toFixed(1)} MB: nothing idle is left to drop`);
    }
  }

  /** Whether a collection must stay loaded: an MCP session uses it or its gateway is starting. */
  private busy(name: string): boolean {
    const collection = this.loaded.get(name);
    if (!collection) return false;
    if (collection.gateway && collection.gateway.sessionCount > 0) return true;
    return !collection.gateway && this.gatewayStarts.has(collection);
  }

  /** Forgets a loaded collection's index (its snapshot is saved first when it has unsaved changes). */
  private async evict(name: string): Promise<void> {
    if (this.unsaved.has(name)) await this.saveSnapshot(name);
    const collection = this.loaded.get(name);
    this.loaded.delete(name);
    this.cache.forget(name);
    this.unsaved.delete(name);
    // An mcp collection's upstreams stop with its gateway; they start again on the next call after it is reloaded.
    await collection?.gateway?.close();
    this.emit({ type: "evict", name });
  }

  private bytesOf(collection: LoadedCollection | undefined): number {
    if (!collection) return 0;
    collection.bytes ??= collection.docs?.memoryBytes() ?? collection.tools?.memoryBytes() ?? 0;
    return collection.bytes;
  }

  private emit(event: CollectionEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /**
   * Hands the open MCP sessions of a replaced collection to its new gateway (creating it for `tools` and `docs`),
   * then closes the old one (its upstreams stop). A collection of another kind cannot replace one (409), but a
   * reload after a pruned log could meet one: its sessions end.
   */
  private async replaceGateway(previous: LoadedCollection | undefined, next: LoadedCollection): Promise<void> {
    const old = await this.existingGateway(previous);
    if (!old) return;
    if (previous!.kind === next.kind && old.sessionCount > 0) old.handOver(await this.gatewayOf(next));
    await old.close();
    if (previous!.kind === "mcp") {
      const kept = new Set(next.kind === "mcp" ? serverNames(next.config) : []);
      await this.forgetManifests(next.name, serverNames(previous!.config).filter((server) => !kept.has(server)));
    }
  }

  /** Deletes the stored manifests of servers a collection no longer has (a failure only leaves unused rows). */
  private async forgetManifests(collection: string, servers: string[]): Promise<void> {
    try {
      await Promise.all(servers.map((server) => this.store.deleteManifest(manifestOwner(collection), server)));
    } catch (error) {
      this.log(`toolsearch serve: could not delete the manifests of ${collection}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Fills `next` from the collection's stored snapshot, caught up with the change log from the snapshot's version;
   * false when there is none or it cannot be used (the caller rebuilds from the items). A damaged, incompatible or
   * unreplayable snapshot is logged, never fatal: the store has the items.
   */
  private async restore(record: CollectionRecord, next: LoadedCollection): Promise<boolean> {
    if (this.options.snapshots === false) return false;
    try {
      const saved = await readSnapshot(this.store, record.name);
      if (!saved) return false;
      const changes = saved.version > record.version ? "rebuild" : await this.changesOf(record.name, saved.version, record.version);
      if (changes === "rebuild") {
        this.log(`toolsearch serve: the snapshot of ${record.name} is of version ${saved.version}, the collection is at ${record.version} and the change log cannot bring it there; rebuilding it`);
        return false;
      }
      const options = { embedder: this.options.embedder };
      if (record.kind === "tools") next.tools = ToolIndex.fromSnapshot(saved.bytes, options);
      else next.docs = DocumentIndex.fromSnapshot(saved.bytes, options);
      next.version = saved.version;
      if (changes.length > 0) await this.applyKeys(next, new Set(changes.map((change) => change.key!)));
      return true;
    } catch (error) {
      next.tools = next.docs = undefined;
      this.log(`toolsearch serve: the snapshot of ${record.name} cannot be used (${error instanceof Error ? error.message : String(error)}); rebuilding it`);
      // Dropped, or it would stand for this version forever (one writer per version) and every load would rebuild:
      // the rebuilt index is saved in its place (e.g. after an upgrade that changed the snapshot format).
      await this.store.deleteSnapshots(record.name).catch((failure: unknown) => this.log(`toolsearch serve: could not delete the snapshot of ${record.name}: ${failure instanceof Error ? failure.message : String(failure)}`));
      return false;
    }
  }

  /** Indexes one stored item; one that no longer passes the index's rules is reported and skipped, not fatal. */
  private indexItem(collection: LoadedCollection, item: ItemRecord): void {
    try {
      if (collection.tools) collection.tools.replace(item.body);
      else collection.docs?.replace(item.body as Document);
    } catch (error) {
      this.log(`toolsearch serve: ${collection.name}/${item.key} is stored but cannot be indexed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Owner of an `mcp` collection's manifests in the store. */
export function manifestOwner(collection: string): string {
  return `collection:${collection}`;
}

/** A collection of the store that this replica holds no index for. */
function idleEntry(record: CollectionRecord): LoadedCollection {
  return {
    name: record.name, kind: record.kind, version: record.version, updatedAt: record.updatedAt, config: record.config,
    source: "rebuild", loaded: false, storedSize: record.size,
  };
}

function serverNames(config: Record<string, unknown>): string[] {
  const servers = config.mcpServers;
  return servers && typeof servers === "object" ? Object.keys(servers) : [];
}
