/**
 * Follows the store's change log: where this replica is in it (the last change applied, and when), what the next
 * page asks for (`planPage`), and when it must start over (the log was pruned past its position). Every change,
 * ours or another replica's, reaches the indexes only this way: `sync` reads the changes after the last one applied
 * and hands each page's plan to the applier, so a replica that missed notifications catches up by calling `sync`
 * again. Calls are queued on the serial queue, so pages apply one at a time, in order; a failure (store unreachable)
 * is reported and retried by the next call, never lost.
 *
 * @example
 * const follower = new ChangeFollower({ store, queue, log, target: applier });
 * await follower.begin(); // position first: what commits while loading is replayed
 * follower.follow(); // sync on every notification
 * await follower.sync();
 * const { appliedSeq, headSeq } = await follower.position(); // lag = headSeq - appliedSeq
 */
import type { Store, Unsubscribe } from "../../store/types.js";
import { type ChangePlan, planPage, prunedPast } from "./change-plan.js";
import type { SerialQueue } from "./serial-queue.js";
import { messageOf } from "./types.js";

/** What the follower hands its plans to (`ChangeApplier`). */
export interface ChangeTarget {
  applyPlan(plan: ChangePlan): Promise<void>;
  /** Re-reads every collection from the store. */
  reloadAll(): Promise<void>;
}

/** What `ChangeFollower` needs. */
export interface ChangeFollowerOptions {
  store: Store;
  queue: SerialQueue;
  target: ChangeTarget;
  /** Changes read per page (default 1000). */
  pageSize?: number;
  log: (line: string) => void;
  /** Milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
}

/** Where a replica is in the change log. */
export interface ReplicaPosition {
  /** `seq` of the last change applied. */
  appliedSeq: number;
  /** `seq` of the last change the store has committed (read now). */
  headSeq: number;
  /** When this replica last applied a change (ms since the epoch); undefined before its first. */
  lastAppliedAt: number | undefined;
}

export class ChangeFollower {
  private applied = 0;
  private appliedAt: number | undefined;
  private unsubscribe: Unsubscribe | undefined;

  constructor(private readonly options: ChangeFollowerOptions) {}

  /** `seq` of the last change applied. */
  get appliedSeq(): number {
    return this.applied;
  }

  /** When this replica last applied a change (ms since the epoch); undefined before its first. */
  get lastAppliedAt(): number | undefined {
    return this.appliedAt;
  }

  /** `seq` of the last change the store has committed, read now (the lag is this minus `appliedSeq`). */
  headSeq(): Promise<number> {
    return this.options.store.latestSeq();
  }

  /** The applied and head positions together (`headSeq` is read from the store). */
  async position(): Promise<ReplicaPosition> {
    return { appliedSeq: this.applied, headSeq: await this.headSeq(), lastAppliedAt: this.appliedAt };
  }

  /**
   * Takes the store's current position as the starting point, before anything is loaded: a change committed while
   * loading is then replayed too (harmless: it re-reads state).
   */
  async begin(): Promise<void> {
    this.applied = await this.options.store.latestSeq();
  }

  /** Syncs on every change the store announces (ours at once; another replica's through the store's notifications). */
  follow(): void {
    this.unsubscribe ??= this.options.store.onChange(() => void this.sync());
  }

  /** Stops syncing on notifications (`sync` still works). */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Applies every change committed so far; see the module comment. Never rejects. */
  sync(): Promise<void> {
    return this.options.queue.settle(() => this.catchUp(), (error) => {
      this.options.log(`toolsearch serve: could not apply changes after seq ${this.applied}: ${messageOf(error)}`);
    });
  }

  private async catchUp(): Promise<void> {
    const { store, target, log } = this.options;
    for (;;) {
      const changes = await store.changesSince(this.applied, this.options.pageSize ?? 1000);
      if (changes.length === 0) return;
      // The log has no gaps except pruned ones: it no longer reaches back to our position, so replaying would skip.
      if (prunedPast(this.applied, changes)) {
        log(`toolsearch serve: the change log was pruned past seq ${this.applied}; reloading every collection from the store`);
        // The position first, as in `begin`: whatever commits while reloading is replayed afterwards.
        const seq = await store.latestSeq();
        await target.reloadAll();
        this.moveTo(seq);
        continue;
      }
      await target.applyPlan(planPage(changes));
      this.moveTo(changes[changes.length - 1].seq);
    }
  }

  private moveTo(seq: number): void {
    this.applied = seq;
    this.appliedAt = (this.options.now ?? Date.now)();
  }
}
