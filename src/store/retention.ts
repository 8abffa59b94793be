/**
 * Pruning the change log by age, safely for every replica.
 *
 * A replica needs the log only to catch up after a disconnect; one that comes back after the retention window finds
 * a gap in the sequence (the log has no other gaps: see src/store/postgres.ts) and reloads everything from the store
 * instead of replaying. So the rule is simple: keep every change younger than `keepMs`, drop the older ones. Ages come
 * from samples of `latestSeq()` taken by this process, which works the same on SQLite and PostgreSQL and needs no
 * clock agreement between replicas. Several replicas pruning at once is harmless (a DELETE of rows already gone).
 *
 * @example
 * const stop = startPruning(store, { keepMs: 24 * 3600_000 }); // … later: stop()
 */
import type { Store } from "./types.js";

/**
 * Usage events (SPEC §17) kept per collection: at most this many, none older than this. Pruned in the same rounds
 * as the change log; the learned signal reads at most `maxEvents` of them back.
 */
export const USAGE_RETENTION = { maxEvents: 100_000, maxAgeDays: 90 } as const;

/** Options of `startPruning`. */
export interface PruneOptions {
  /** How long a change stays in the log (default 24 h): the longest disconnect a replica catches up from by replay. */
  keepMs?: number;
  /** How often to sample the sequence and prune (default a tenth of `keepMs`, at most 10 minutes). */
  everyMs?: number;
  /** Where a failed prune is reported (default: ignored; the next round tries again). */
  log?: (line: string) => void;
  /** The clock (tests). */
  now?: () => number;
}

/** The highest `seq` older than the window, given samples `[time, seq]` oldest first; 0 when none is old enough. */
export function pruneMark(samples: Array<[time: number, seq: number]>, now: number, keepMs: number): number {
  let mark = 0;
  for (const [time, seq] of samples) if (now - time >= keepMs) mark = seq;
  return mark;
}

/**
 * One round: samples the sequence, prunes what is older than the window, and forgets samples it no longer needs.
 * Exposed for tests; `startPruning` calls it on a timer.
 */
export async function pruneRound(store: Store, samples: Array<[number, number]>, now: number, keepMs: number): Promise<number> {
  samples.push([now, await store.latestSeq()]);
  const mark = pruneMark(samples, now, keepMs);
  // Keep the newest sample that is old enough: it is the mark until a newer one ages past the window.
  while (samples.length > 1 && now - samples[1][0] >= keepMs) samples.shift();
  await store.pruneUsage(new Date(now - USAGE_RETENTION.maxAgeDays * 86_400_000).toISOString(), USAGE_RETENTION.maxEvents);
  return mark > 0 ? store.pruneChanges(mark) : 0;
}

/** Prunes on a timer until the returned function is called. The timer does not keep the process alive. */
export function startPruning(store: Store, options: PruneOptions = {}): () => void {
  const keepMs = options.keepMs ?? 24 * 3600_000;
  const everyMs = options.everyMs ?? Math.min(Math.max(keepMs / 10, 1000), 600_000);
  const now = options.now ?? Date.now;
  const samples: Array<[number, number]> = [];
  let running = false;
  const round = async () => {
    if (running) return;
    running = true;
    try {
      await pruneRound(store, samples, now(), keepMs);
    } catch (error) {
      options.log?.(`toolsearch: pruning the change log failed (will retry): ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      running = false;
    }
  };
  void round();
  const timer = setInterval(round, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
