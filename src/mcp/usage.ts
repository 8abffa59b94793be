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

/**
 * Most events waiting for the store; beyond, the oldest are dropped and reported. Far more than a healthy store lets
 * pile up (each write takes everything waiting), so only a store that fails or stalls for long reaches it.
 */
export const MAX_QUEUED_USAGE = 100_000;

export class StoreUsage implements GatewayUsage {
  readonly collection = GATEWAY_USAGE;
  /** Events recorded and not yet handed to the store, oldest first. */
  private queue: UsageEvent[] = [];
  /** The write in flight, if any: `flush` waits for it (and for what queued behind it) before the store closes. */
  private writing: Promise<void> | undefined;
  /** Events dropped because the queue overflowed. */
  dropped = 0;

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

  /**
   * Queues the events for the store; one write at a time takes every event queued so far. (A chain of one write per
   * `record` fell behind under load: the store commits once per turn of the event loop, so a chain moved one call's
   * events per turn while 16 calls in flight recorded up to 16, and 14 minutes of such calls left 33,000 writes
   * waiting in memory.)
   */
  record(events: UsageEvent[]): void {
    for (const event of events) this.learner.add(event);
    this.queue.push(...events);
    if (this.queue.length > MAX_QUEUED_USAGE) {
      const over = this.queue.length - MAX_QUEUED_USAGE;
      this.queue.splice(0, over);
      this.dropped += over;
      this.log(`toolsearch mcp: usage events are recorded faster than the store takes them; ${this.dropped} oldest dropped so far`);
    }
    // With events queued, `drain` always waits for the store at least once, so it never ends before it is assigned.
    if (!this.writing && this.queue.length > 0) this.writing = this.drain();
  }

  /** Resolves once every event recorded so far is in the store (or its write failed and was reported). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Writes what is queued, in order, one batch at a time, until nothing is left. */
  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        try {
          await this.store.recordUsage(batch);
        } catch (error) {
          // Usage is not worth failing a call, nor retrying for: the batch is reported and left out.
          this.log(`toolsearch mcp: could not record usage: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    } finally {
      this.writing = undefined;
    }
  }
}
