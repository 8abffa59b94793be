/**
 * Times `VectorIndex.search` alone: the WebAssembly SIMD kernel against the plain-JS scan (the fallback, and the
 * scan every search used before the kernel), on random unit vectors; checks that both return the same ids.
 *
 *   node --import tsx scripts/bench-vector.ts [--rows 12174] [--dimensions 512] [--queries 200] [--k 10] [--filter]
 *
 * `--filter` keeps one id in ten through `accept`. Reports p50/p99 wall and p50 CPU (`process.cpuUsage`) per search,
 * after 20 warm-up searches; CPU time is the steadier figure on a shared machine.
 */
import { parseArgs } from "node:util";
import { VectorIndex } from "../src/engines/vector.js";
import { percentile } from "../src/eval/metrics.js";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "12174" },
    dimensions: { type: "string", default: "512" },
    queries: { type: "string", default: "200" },
    k: { type: "string", default: "10" },
    filter: { type: "boolean", default: false },
  },
});
const rows = Number(values.rows), dimensions = Number(values.dimensions), k = Number(values.k);

let state = 12345;
const uniform = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) + 0.5) / 2 ** 32;
const gaussian = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
function unitVector(): Float32Array {
  const v = Float32Array.from({ length: dimensions }, gaussian);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const ids = Array.from({ length: rows }, (_, i) => `tool_${i}`);
const wasm = new VectorIndex(dimensions, rows);
const js = new VectorIndex(dimensions, rows, { kernel: "js" });
for (const id of ids) {
  const v = unitVector();
  wasm.set(id, v);
  js.set(id, v);
}
const queries = Array.from({ length: Number(values.queries) }, unitVector);
const accept = values.filter ? (id: string) => id.endsWith("3") : undefined;

let differing = 0;
for (const q of queries) {
  if (wasm.search(q, k, accept).map((h) => h.id).join() !== js.search(q, k, accept).map((h) => h.id).join()) differing++;
}

console.log(`${rows} rows × ${dimensions} dimensions, top ${k}${accept ? ", accept 1 in 10" : ""}, ${queries.length} queries`);
console.log(`queries whose ids differ between kernels: ${differing} (only float-rounding ties may)`);
for (const index of [js, wasm]) {
  for (const q of queries.slice(0, 20)) index.search(q, k, accept);
  const wall: number[] = [], cpu: number[] = [];
  for (const q of queries) {
    const cpuStart = process.cpuUsage(), start = performance.now();
    index.search(q, k, accept);
    wall.push(performance.now() - start);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  const f = (x: number) => x.toFixed(2).padStart(6);
  console.log(`${index.kernel.padEnd(9)}  wall p50 ${f(percentile(wall, 0.5))} ms  p99 ${f(percentile(wall, 0.99))} ms  CPU p50 ${f(percentile(cpu, 0.5))} ms`);
}
