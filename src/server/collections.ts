/**
 * The in-memory side of the service: one index (or MCP gateway) per collection of the store, kept in step with it.
 *
 * The store is the source of truth. `start` builds every collection from it; afterwards every change (ours, or
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
 * Snapshots: a `tools` collection's index is also saved to the store as a snapshot tagged with the collection's
 * version (src/server/snapshots.ts), a while after it changes and at `close`. `start` loads a collection from its
 * snapshot instead of re-analyzing every tool, but only when the tag equals the collection's current version; a
 * stale, damaged or incompatible snapshot is logged and the collection is rebuilt from its items.
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
import { Gateway, type GatewayOptions } from "../mcp/gateway.js";
import { deleteLaunchSnapshots } from "../mcp/launch-snapshot.js";
import { unknownCollection } from "../store/records.js";
import { deleteSnapshot, readSnapshot, saveSnapshot } from "./snapshots.js";
import type { Change, CollectionKind, CollectionRecord, ItemRecord, Store, Unsubscribe } from "../store/types.js";

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
   * Index snapshots of `tools` collections in the store: `false` neither reads nor writes them; `saveDelayMs` is how
   * long after the last change a snapshot is saved (default 5000), so a burst of writes costs one snapshot.
   */
  snapshots?: false | { saveDelayMs?: number };
}

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
}

/** Touched keys re-read from the store at once when applying changes. */
const READ_AHEAD = 16;

export class Collections {
  private readonly loaded = new Map<string, LoadedCollection>();
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
  }

  /** Loads every collection, then follows the change log. */
  async start(onProgress?: (done: number, total: number, name: string) => void): Promise<void> {
    // Read the position first: a change committed while loading is then replayed too (harmless: it re-reads state).
    this.applied = await this.store.latestSeq();
    const records = await this.store.listCollections();
    let done = 0;
    for (const record of records) {
      await this.load(record, true);
      onProgress?.(++done, records.length, record.name);
    }
    this.unsubscribe = this.store.onChange(() => void this.sync());
    await this.sync();
    this.started = true;
  }

  /** Whether every collection has been loaded (`/readyz`). */
  get ready(): boolean {
    return this.started;
  }

  /** The last change applied. */
  get appliedSeq(): number {
    return this.applied;
  }

  /** A loaded collection, or `unknown_collection` (`not_ready` while collections are still loading). */
  get(name: string): LoadedCollection {
    const found = this.loaded.get(name);
    if (!found && !this.started) throw new ToolsearchError("not_ready", "The service is still loading its collections; retry shortly.");
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
    if (!this.loaded.has(name) && this.started) await this.sync();
    return this.get(name);
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

  /** Every loaded collection, by name. */
  list(): LoadedCollection[] {
    return [...this.loaded.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Number of items a collection serves (for `mcp`: the upstream tools seen so far). */
  sizeOf(collection: LoadedCollection): number {
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
      starting = Gateway.start({ catalog: collection.tools, docs: collection.docs, exposeFound: this.options.exposeFound, log: this.log })
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
   * the other touched keys are re-read once each, whatever the number of changes to them.
   */
  private async applyPage(changes: Change[]): Promise<void> {
    const whole = new Set<string>();
    const keys = new Map<string, Set<string>>();
    for (const change of changes) {
      if (change.scope === "collection" || change.key === undefined) whole.add(change.collection);
      else keys.set(change.collection, (keys.get(change.collection) ?? new Set()).add(change.key));
    }
    for (const name of whole) await this.reload(name);
    for (const [name, touched] of keys) {
      if (whole.has(name)) continue;
      if (!this.loaded.has(name)) {
        await this.reload(name);
        continue;
      }
      await this.applyKeys(this.loaded.get(name)!, touched);
    }
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
    const record = await this.store.getCollection(collection.name);
    if (record) {
      collection.version = record.version;
      collection.updatedAt = record.updatedAt;
    }
    this.markUnsaved(collection);
  }

  /** Schedules a snapshot of a changed `tools` collection, debounced so that a burst of writes saves once. */
  private markUnsaved(collection: LoadedCollection): void {
    if (collection.kind !== "tools" || this.options.snapshots === false) return;
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
   * grow), so the index is exactly the collection at that version.
   */
  private async saveSnapshot(name: string): Promise<boolean> {
    const collection = this.loaded.get(name);
    if (!collection?.tools) {
      this.unsaved.delete(name);
      return false;
    }
    const record = await this.store.getCollection(name);
    if (!record || record.version > this.applied) return false;
    this.unsaved.delete(name);
    await saveSnapshot(this.store, name, record.version, collection.tools.snapshot());
    return true;
  }

  /** Rebuilds every collection from the store (after a disconnect longer than the log's retention). */
  private async reloadAll(): Promise<void> {
    this.log(`toolsearch serve: the change log was pruned past seq ${this.applied}; reloading every collection from the store`);
    // The position first, as in `start`: whatever commits while reloading is replayed afterwards.
    const seq = await this.store.latestSeq();
    const records = await this.store.listCollections();
    for (const record of records) await this.load(record, true);
    const names = new Set(records.map((record) => record.name));
    for (const name of [...this.loaded.keys()]) if (!names.has(name)) await this.drop(name);
    this.applied = seq;
  }

  private async reload(name: string): Promise<void> {
    const record = await this.store.getCollection(name);
    if (!record) return this.drop(name);
    await this.load(record);
  }

  private async drop(name: string): Promise<void> {
    const gone = this.loaded.get(name);
    this.loaded.delete(name);
    this.unsaved.delete(name);
    // Its open MCP sessions end here; their next request is told the collection is gone (routes/mcp.ts).
    await (await this.existingGateway(gone))?.close();
    if (gone?.kind === "mcp") {
      await this.forgetManifests(name, serverNames(gone.config));
      await this.store.deletePins(manifestOwner(name)).catch((error: unknown) => this.log(`toolsearch serve: could not delete the pinned definitions of ${name}: ${error instanceof Error ? error.message : String(error)}`));
      await deleteLaunchSnapshots(this.store, manifestOwner(name)).catch((error: unknown) => this.log(`toolsearch serve: could not delete the launch snapshots of ${name}: ${error instanceof Error ? error.message : String(error)}`));
    }
    // Its snapshot can never match again (a re-created collection gets a new version): free the space.
    if (gone?.kind === "tools" && this.options.snapshots !== false) {
      await deleteSnapshot(this.store, name).catch((error: unknown) => this.log(`toolsearch serve: could not delete the snapshot of ${name}: ${error instanceof Error ? error.message : String(error)}`));
    }
  }

  /**
   * Builds a collection's index from its stored items (or, with `fromSnapshot`, from a snapshot of exactly this
   * version) and swaps it in whole (searches never see a half index).
   */
  private async load(record: CollectionRecord, fromSnapshot = false): Promise<void> {
    const next: LoadedCollection = { name: record.name, kind: record.kind, version: record.version, updatedAt: record.updatedAt, config: record.config, source: "rebuild" };
    const embedder = this.options.embedder;
    if (record.kind === "mcp") {
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
      });
      next.tools = next.gateway.index;
    } else {
      const restored = record.kind === "tools" && fromSnapshot ? await this.restore(record) : undefined;
      if (restored) {
        next.tools = restored;
        next.source = "snapshot";
      } else {
        const items = await this.store.listItems(record.name);
        if (record.kind === "tools") next.tools = new ToolIndex([], { embedder });
        else next.docs = new DocumentIndex([], { embedder });
        for (const item of items) this.indexItem(next, item);
      }
    }
    const previous = this.loaded.get(record.name);
    this.loaded.set(record.name, next);
    if (next.source === "rebuild") this.markUnsaved(next);
    await this.replaceGateway(previous, next);
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
   * The collection's index from its stored snapshot, when one was taken at exactly `record.version`; otherwise
   * undefined (the caller rebuilds). A damaged or incompatible snapshot is logged, never fatal: the store has the items.
   */
  private async restore(record: CollectionRecord): Promise<ToolIndex | undefined> {
    if (this.options.snapshots === false) return undefined;
    try {
      const saved = await readSnapshot(this.store, record.name);
      if (!saved) return undefined;
      if (saved.version !== record.version) {
        this.log(`toolsearch serve: the snapshot of ${record.name} is of version ${saved.version}, the collection is at ${record.version}; rebuilding it`);
        return undefined;
      }
      return ToolIndex.fromSnapshot(saved.bytes, { embedder: this.options.embedder });
    } catch (error) {
      this.log(`toolsearch serve: the snapshot of ${record.name} cannot be used (${error instanceof Error ? error.message : String(error)}); rebuilding it`);
      return undefined;
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

function serverNames(config: Record<string, unknown>): string[] {
  const servers = config.mcpServers;
  return servers && typeof servers === "object" ? Object.keys(servers) : [];
}
