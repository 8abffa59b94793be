/**
 * Usage of the standalone gateway (`toolsearch mcp`, SPEC §17): its sessions' searches, loads and calls go to its
 * store under `GATEWAY_USAGE`, a name no collection can have, and teach its index's learned signal, which is rebuilt
 * from the store at start (the store is the source of truth; the signal is a cache of it). The service wires its
 * collections' gateways to `Collections.recordUsage` instead.
 *
 * @example
 * ```ts
 * const usage = await StoreUsage.open(store, catalog);
 * const gateway = await Gateway.start({ catalog, usage });
 * ```
 */
import type { ToolIndex } from "../indexes/tool-index.js";
import type { Store, UsageEvent } from "../store/types.js";
import { USAGE_RETENTION } from "../store/retention.js";
import { UsageLearner, learnedFromEvents } from "../usage/events.js";
import type { GatewayUsage } from "./gateway.js";

/** The collection name of the standalone gateway's usage events (`toolsearch usage export --collection :gateway`). */
export const GATEWAY_USAGE = ":gateway";

/** Options of `StoreUsage.open`. */
export interface StoreUsageOptions {
  /** Blend the learned signal into the gateway's searches (default true; `toolsearch mcp --no-learning`). Events are recorded either way. */
  learning?: boolean;
  /** Where a failed write is reported (default: stderr). */
  log?: (line: string) => void;
}

export class StoreUsage implements GatewayUsage {
  readonly collection = GATEWAY_USAGE;
  /** Writes in flight, in order: `flush` waits for them before the store closes. */
  private writes: Promise<void> = Promise.resolve();

  private constructor(
    private readonly store: Pick<Store, "recordUsage">,
    private readonly learner: UsageLearner,
    private readonly log: (line: string) => void,
  ) {}

  /** Reads the gateway's past events from `store` and plugs what they teach into `index` (unless learning is off). */
  static async open(store: Pick<Store, "recordUsage" | "listUsage">, index: ToolIndex, options: StoreUsageOptions = {}): Promise<StoreUsage> {
    const learner = learnedFromEvents(await store.listUsage(GATEWAY_USAGE, USAGE_RETENTION.maxEvents), index.analyzer);
    if (options.learning !== false) index.setLearned(learner.signal);
    return new StoreUsage(store, learner, options.log ?? ((line) => process.stderr.write(`${line}\n`)));
  }

  record(events: UsageEvent[]): void {
    for (const event of events) this.learner.add(event);
    this.writes = this.writes
      .then(() => this.store.recordUsage(events))
      .catch((error: unknown) => this.log(`toolsearch mcp: could not record usage: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** Resolves once every event recorded so far is in the store. */
  flush(): Promise<void> {
    return this.writes;
  }
}
