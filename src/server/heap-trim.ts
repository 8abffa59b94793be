/**
 * Gives the memory of dropped collections back to the system (`serve --memory-budget`).
 *
 * Evicting a collection only makes its index garbage. V8 collects old garbage when its heap has grown by a factor
 * it picks from the allocation rate, and loading snapshots allocates fast, so under a budget the heap settled at
 * about twice what the loaded indexes hold, and RSS with it (docs/service.md, "Many collections"). After a load or
 * an eviction, `HeapTrim` runs a full collection when V8's heap exceeds what the budget explains (its size at start
 * plus half the budget), at most once a second, after the current request's work (`setImmediate`). When a
 * collection still leaves the heap above that line (indexes over the budget because they are in use, or larger than
 * their count), the line moves up to the heap after collection plus a quarter, so that it never collects in a loop.
 *
 * The collection is V8's `gc()`, exposed at run time (`--expose-gc` set through `v8.setFlagsFromString`), so no flag
 * is needed on the command line.
 *
 * @example
 * const trim = new HeapTrim({ budgetBytes: 64 * MB });
 * collections.observe(() => trim.check());
 */
import v8 from "node:v8";
import { runInNewContext } from "node:vm";

/** Options of `HeapTrim`. */
export interface HeapTrimOptions {
  /** The memory budget of the loaded indexes, in bytes. */
  budgetBytes: number;
  /** Least time between two collections (default 1000 ms). */
  minIntervalMs?: number;
  /** Runs a full collection (default: V8's, exposed at run time). */
  gc?: () => void;
  /** V8's heap size now, in bytes (default: `total_heap_size`). */
  heapBytes?: () => number;
  /** Milliseconds on a monotonic clock (default `performance.now`). */
  now?: () => number;
  /** Runs the collection after the current work (default `setImmediate`). */
  defer?: (run: () => void) => void;
}

/** The share of the budget the heap may hold above its start-up size before a collection. */
const SLACK = 0.5;

export class HeapTrim {
  /** Heap size past which `check` collects. */
  private line: number;
  private readonly floor: number;
  private last = -Infinity;
  private pending = false;
  private readonly gc: () => void;
  private readonly heapBytes: () => number;
  private readonly now: () => number;
  private readonly defer: (run: () => void) => void;
  /** Collections run so far. */
  collections = 0;

  constructor(private readonly options: HeapTrimOptions) {
    this.gc = options.gc ?? exposeGc();
    this.heapBytes = options.heapBytes ?? (() => v8.getHeapStatistics().total_heap_size);
    this.now = options.now ?? (() => performance.now());
    this.defer = options.defer ?? ((run) => void setImmediate(run));
    this.floor = this.line = this.heapBytes() + SLACK * options.budgetBytes;
  }

  /** After a load or an eviction: schedules a full collection when the heap is past the line. */
  check(): void {
    if (this.pending || this.heapBytes() <= this.line || this.now() - this.last < (this.options.minIntervalMs ?? 1000)) return;
    this.pending = true;
    this.defer(() => {
      this.pending = false;
      this.last = this.now();
      this.gc();
      this.collections++;
      this.line = Math.max(this.floor, this.heapBytes() * 1.25);
    });
  }
}

/**
 * How far past its live size V8 lets the old generation grow before its next full collection, in percent, under a
 * budget. V8's own factor rises up to 4× live when allocation is fast, which is what loading and dropping snapshots
 * is: measured with `bench:collections` (400 collections once under 64 MB), RSS peaked at 337 MB with V8's default
 * and 253 MB at 20 %, for a cold p99 of 20 → 50 ms (more frequent, still incremental, collections).
 */
export const HEAP_GROWING_PERCENT = 20;

/**
 * Makes V8 collect its old generation once it has grown `HEAP_GROWING_PERCENT` past the live size of the last
 * collection, instead of its own allocation-driven factor. V8 reads `--heap-growing-percent` each time it sets its
 * next limit, so it applies from the next collection on when set at run time (checked in test/server/heap-trim.test.ts).
 */
export function tightenHeapGrowth(percent = HEAP_GROWING_PERCENT): void {
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/** V8's `gc()`, exposed without a command-line flag. */
export function exposeGc(): () => void {
  v8.setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}
