/**
 * When collections load: the warm-up list `start` loads (every collection by default; with `preload`, the ones named
 * and the most recently changed), and a load on a collection's first request for the others. A first-request load
 * runs outside the serial queue, so other collections keep answering while it reads and builds; only the final
 * swap-in is queued (and catches up with changes applied meanwhile). Concurrent callers share one load.
 *
 * @example
 * const loads = new Loads({ store, queue, residents, loader, applier, log, emit });
 * for (const record of warmUpList(records, preload, log)) await loads.load(record.name);
 */
import type { CollectionRecord, Store } from "../../store/types.js";
import type { ChangeApplier } from "./apply-changes.js";
import type { CollectionLoader } from "./loader.js";
import type { ResidentSet } from "./resident-set.js";
import type { SerialQueue } from "./serial-queue.js";
import { type CollectionEvent, type CollectionsOptions, type LoadedCollection, messageOf } from "./types.js";

/** What `Loads` needs: the other parts of `Collections`. */
export interface LoadsParts {
  store: Store;
  queue: SerialQueue;
  residents: ResidentSet;
  loader: CollectionLoader;
  applier: ChangeApplier;
  log: (line: string) => void;
  emit: (event: CollectionEvent) => void;
}

/** The collections `start` loads: every one, or those named and the most recently changed (see `preload`). */
export function warmUpList(records: CollectionRecord[], preload: CollectionsOptions["preload"] = "all", log: (line: string) => void = () => {}): CollectionRecord[] {
  if (preload === "all") return records;
  const known = new Set(records.map((record) => record.name));
  const names = new Set(preload.names ?? []);
  for (const name of names) if (!known.has(name)) log(`toolsearch serve: --preload ${name}: there is no such collection in the store`);
  const recent = [...records].sort((a, b) => b.version - a.version).slice(0, preload.recent ?? 0);
  for (const record of recent) names.add(record.name);
  return records.filter((record) => names.has(record.name));
}

export class Loads {
  /** Loads in flight, so that concurrent first requests share one. */
  private readonly inFlight = new Map<string, Promise<LoadedCollection | undefined>>();

  constructor(private readonly parts: LoadsParts) {}

  /**
   * Loads a collection of the store that is not in memory; concurrent callers share one load. Undefined when it was
   * deleted meanwhile.
   */
  load(name: string): Promise<LoadedCollection | undefined> {
    let loading = this.inFlight.get(name);
    if (!loading) {
      loading = this.loadCold(name).finally(() => this.inFlight.delete(name));
      this.inFlight.set(name, loading);
    }
    return loading;
  }

  /** Settles once every load in flight has (`close`, drain). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private async loadCold(name: string): Promise<LoadedCollection | undefined> {
    const { store, residents, loader, applier, queue, log } = this.parts;
    const started = performance.now();
    const record = await store.getCollection(name);
    if (!record) {
      residents.forgetRecord(name);
      return undefined;
    }
    const built = await loader.build(record);
    const installed = await queue.run(() => applier.swapIn(built), (error) => log(`toolsearch serve: could not load ${name}: ${messageOf(error)}`));
    if (installed) this.parts.emit({ type: "load", name, seconds: (performance.now() - started) / 1000, source: built.collection.source });
    return installed;
  }
}
