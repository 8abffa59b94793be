/**
 * What a `ToolIndex` loaded from its snapshot holds in the JavaScript heap (issue 37), in a fresh process:
 *
 * - the 12.2k-tool scale catalog: snapshot load time (median of `--loads`), then one search, then the heap's objects
 *   counted in a V8 heap snapshot taken before the load and after the search (the index kept alive, everything else
 *   collected): the difference per tool, by V8 node type;
 * - 150-tool collections (consecutive slices of the catalog, `--collections` of them) loaded from their snapshots and
 *   searched once each: heap used after a full collection, per collection, against the index's own `memoryBytes()`.
 *
 * `--tree PATH` imports the index from another source tree (for a before/after in the same machine state):
 *
 *   node --expose-gc --import tsx bench/index-heap.ts [--tree /tmp/main] [--data ../shared/data] [--json]
 */
import { join, resolve } from "node:path";
import { getHeapSnapshot } from "node:v8";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    tree: { type: "string", default: "." },
    data: { type: "string", default: "../shared/data" },
    loads: { type: "string", default: "7" },
    collections: { type: "string", default: "40" },
    json: { type: "boolean", default: false },
  },
});
if (typeof gc !== "function") throw new Error("run with node --expose-gc");
const collect = gc;

interface Index { searchSync(query: string, options: { limit: number }): unknown[]; snapshot(): Buffer; memoryBytes(): number; size: number }
const tree = resolve(values.tree!);
const { loadCatalogFile } = await import(join(tree, "src/catalog/load.ts"));
const { ToolIndex } = (await import(join(tree, "src/indexes/tool-index.ts"))) as {
  ToolIndex: { new (tools: unknown[]): Index; fromSnapshot(buffer: Uint8Array): Index };
};

/** Heap snapshot node counts by type (the snapshot's `node_types`), parsed from V8's JSON stream. */
async function heapCounts(): Promise<Map<string, number>> {
  collect();
  collect();
  const chunks: Buffer[] = [];
  for await (const chunk of getHeapSnapshot()) chunks.push(chunk as Buffer);
  const snapshot = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[] };
  const { node_fields: fields, node_types: types } = snapshot.snapshot.meta;
  const typeNames = types[0];
  const counts = new Map<string, number>();
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const type = typeNames[snapshot.nodes[i]];
    counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  return counts;
}

/** Node types that are JavaScript values (V8's own code, hidden backing stores and synthetic roots are left out). */
const JS_TYPES = ["object", "closure", "regexp", "string", "concatenated string", "sliced string", "number", "array", "bigint", "symbol"];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

const tools = loadCatalogFile(join(values.data!, "scale", "catalog.json")) as { name: string }[];
const bytes = new ToolIndex(tools).snapshot();
const loadMs: number[] = [];
for (let i = 0; i < Number(values.loads); i++) {
  const started = performance.now();
  ToolIndex.fromSnapshot(bytes);
  loadMs.push(performance.now() - started);
}

const before = await heapCounts();
let kept: Index | undefined = ToolIndex.fromSnapshot(bytes);
kept.searchSync("send an email with an attachment", { limit: 10 });
const after = await heapCounts();
const perTool: Record<string, number> = {};
let objects = 0;
for (const type of new Set([...before.keys(), ...after.keys()])) {
  const delta = (after.get(type) ?? 0) - (before.get(type) ?? 0);
  if (Math.abs(delta) >= tools.length / 100) perTool[type] = Number((delta / tools.length).toFixed(2));
  if (JS_TYPES.includes(type)) objects += delta;
}
const scaleMemoryBytes = kept.memoryBytes();
kept = undefined;

// 150-tool collections, as a service keeps them: loaded from snapshots, searched once.
const count = Number(values.collections);
let snapshots: Buffer[] | undefined = Array.from({ length: count }, (_, c) => new ToolIndex(tools.slice(c * 150, (c + 1) * 150)).snapshot());
const snapshotBytes = snapshots.reduce((sum, s) => sum + s.length, 0);
collect();
collect();
const start = process.memoryUsage();
// Each loaded from its own copy, as a service reads it from the store; the copies the index keeps count as buffers.
const loaded = snapshots.map((snapshot) => {
  const index = ToolIndex.fromSnapshot(Buffer.from(snapshot));
  index.searchSync("get the weather forecast for a city", { limit: 5 });
  return index;
});
snapshots = undefined;
collect();
collect();
const end = process.memoryUsage();
const heapPer = (end.heapUsed - start.heapUsed) / count;
const buffersPer = (end.arrayBuffers - start.arrayBuffers + snapshotBytes) / count;
const counted = loaded.reduce((sum, index) => sum + index.memoryBytes(), 0) / count;
const countedOver = counted / (heapPer + buffersPer);

const result = {
  tree,
  tools: tools.length,
  snapshot_mb: Number((bytes.length / 1e6).toFixed(2)),
  snapshot_load_ms: Number(median(loadMs).toFixed(1)),
  js_objects_per_tool: Number((objects / tools.length).toFixed(2)),
  heap_nodes_per_tool_by_type: perTool,
  scale_memory_bytes_mb: Number((scaleMemoryBytes / 1e6).toFixed(2)),
  collection_150_heap_kb: Number((heapPer / 1024).toFixed(1)),
  collection_150_buffers_kb: Number((buffersPer / 1024).toFixed(1)),
  collection_150_counted_kb: Number((counted / 1024).toFixed(1)),
  counted_over_heap_and_buffers: Number(countedOver.toFixed(2)),
};
if (values.json) console.log(JSON.stringify(result));
else console.log(result);
