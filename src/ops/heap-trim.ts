/**
 * Gives the memory of dropped collections back to the system (`serve --memory-budget`), and keeps a long-running
 * gateway's heap near what it holds (`toolsearch mcp --http`).
 *
 * Evicting a collection only makes its index garbage. V8 collects old garbage when its heap has grown by a factor
 * it picks from the allocation rate, and loading snapshots allocates fast, so under a budget the heap settled at
 * about twice what the loaded indexes hold, and RSS with it (docs/service.md, "Many collections"). Under a budget
 * `serve` therefore lowers V8's heap growth at run time (`tightenHeapGrowth`).
 *
 * A forced full collection after loads and evictions (`gc()` exposed at run time) was also made here; it no longer
 * changes anything measurable now that an index is mostly a snapshot's bytes and typed arrays rather than objects
 * (400 collections searched once under 64 MB: 216 / 216 MB RSS with it and the flag, 212 / 217 MB with the flag
 * alone, 297–312 MB with neither; docs/benchmarks.md, "Issue 37"), so it was removed.
 *
 * A gateway serving calls over HTTP is the other case: every call allocates a few hundred KB that die at once (web
 * streams, fetch, JSON-RPC parsing, mostly in the MCP SDK and undici), and under that rate V8's factor kept 70–184 MB
 * of old-space pages committed for a ~30 MB live heap, so RSS swung by tens of MB from minute to minute over a
 * 10-minute soak. `toolsearch mcp --http` therefore tightens it too (docs/benchmarks.md, "Soak").
 *
 * @example
 * if (budget !== undefined) tightenHeapGrowth();
 */
import v8 from "node:v8";

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
 * next limit, so it applies from the next collection on when set at run time (checked in test/ops/heap-trim.test.ts).
 * An operator's own `--heap-growing-percent` (on the command line or in NODE_OPTIONS) wins: then nothing is changed.
 * Returns whether the flag was set here.
 */
export function tightenHeapGrowth(percent = HEAP_GROWING_PERCENT, node: NodeFlags = currentNodeFlags()): boolean {
  if (chosenByOperator(node)) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  return true;
}

/** The Node options a process was started with: its command line's and NODE_OPTIONS. */
export interface NodeFlags {
  execArgv: readonly string[];
  nodeOptions?: string;
}

function currentNodeFlags(): NodeFlags {
  return { execArgv: process.execArgv, nodeOptions: process.env.NODE_OPTIONS };
}

/** Whether `--heap-growing-percent` was given to Node (V8 accepts `_` for `-` in its flags' names). */
function chosenByOperator(node: NodeFlags): boolean {
  const flags = [...node.execArgv, ...(node.nodeOptions ?? "").split(/\s+/)];
  return flags.some((flag) => /^--heap[-_]growing[-_]percent(=|$)/.test(flag));
}
