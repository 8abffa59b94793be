import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { renderVectorKernel } from "../../scripts/build-vector-kernel.js";
import { compareRanked, type Ranked } from "../../src/engines/top-k.js";
import { VectorIndex } from "../../src/engines/vector.js";

const KERNELS = ["auto", "js"] as const;

/** Deterministic Gaussian-ish numbers (xorshift32 + Box–Muller). */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  const uniform = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) + 0.5) / 2 ** 32;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

function vector(next: () => number, dimensions: number): Float32Array {
  return Float32Array.from({ length: dimensions }, next);
}

function unit(v: Float32Array): Float32Array {
  const norm = Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  return v.map((x) => x / norm);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** A full sort by the index's own `score`: what an exhaustive scan with the same kernel returns. */
function bruteForce(index: VectorIndex, ids: Iterable<string>, query: Float32Array, k: number, accept?: (id: string) => boolean): Ranked[] {
  const all: Ranked[] = [];
  for (const id of ids) if (!accept || accept(id)) all.push({ id, score: index.score(id, query)! });
  return all.sort(compareRanked).slice(0, Math.max(0, k));
}

/** Same ranking up to float rounding: equal scores within 1e-5, and ids equal unless the scores nearly tie. */
function assertSameRanking(actual: Ranked[], expected: Ranked[], message: string): void {
  assert.equal(actual.length, expected.length, message);
  actual.forEach((hit, i) => {
    assert.ok(Math.abs(hit.score - expected[i].score) < 1e-5, `${message}: score ${i}: ${hit.score} vs ${expected[i].score}`);
    if (hit.id !== expected[i].id) {
      const near = expected.some((other) => other.id === hit.id && Math.abs(other.score - hit.score) < 1e-5);
      const last = expected[expected.length - 1];
      assert.ok(near || Math.abs(hit.score - last.score) < 1e-5, `${message}: id ${i}: ${hit.id} vs ${expected[i].id}`);
    }
  });
}

describe("VectorIndex", () => {
  it("uses the WebAssembly SIMD kernel on Node 20 unless told to use JS", () => {
    assert.equal(new VectorIndex(8).kernel, "wasm-simd");
    assert.equal(new VectorIndex(8, 4, { kernel: "js" }).kernel, "js");
  });

  it("falls back to the JS scan by itself where WebAssembly is unavailable (node --jitless)", () => {
    const script = [
      `const { VectorIndex } = await import(${JSON.stringify(new URL("../../src/engines/vector.ts", import.meta.url).href)});`,
      "const index = new VectorIndex(3);",
      "index.set('a', new Float32Array([1, 0, 0])); index.set('b', new Float32Array([0, 1, 0]));",
      "console.log(JSON.stringify([index.kernel, index.search(new Float32Array([0.6, 0.8, 0]), 2)]));",
    ].join("\n");
    const out = execFileSync(process.execPath, ["--jitless", "--no-warnings", "--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const [kernel, hits] = JSON.parse(out) as [string, Ranked[]];
    assert.equal(kernel, "js");
    assert.deepEqual(hits.map((hit) => hit.id), ["b", "a"]);
  });

  it("the checked-in kernel module is the assembled vector-kernel.wat (npm run build:kernel)", async () => {
    const checkedIn = readFileSync(new URL("../../src/engines/vector-kernel.ts", import.meta.url), "utf8");
    assert.equal(checkedIn, await renderVectorKernel());
  });

  for (const kernel of KERNELS) {
    describe(`kernel ${kernel}`, () => {
      it("scores equal a JS dot product within 1e-5, for dimensions that are not multiples of 4 or 16 too", () => {
        for (const dimensions of [1, 3, 7, 16, 33, 384, 512]) {
          const next = random(dimensions);
          const index = new VectorIndex(dimensions, 4, { kernel });
          const rows = Array.from({ length: 40 }, () => vector(next, dimensions));
          rows.forEach((row, i) => index.set(`r${i}`, row));
          for (let trial = 0; trial < 5; trial++) {
            const query = unit(vector(next, dimensions));
            rows.forEach((row, i) => {
              const score = index.score(`r${i}`, query)!;
              assert.ok(Math.abs(score - dot(unit(row), query)) < 1e-5, `${dimensions} dims, row ${i}: ${score}`);
            });
          }
          assert.equal(index.score("missing", unit(vector(next, dimensions))), undefined);
        }
      });

      it("top k equals a brute-force sort, for k = 1, 5, 10, 50 and k ≥ size", () => {
        for (const dimensions of [3, 7, 384, 512]) {
          const next = random(1000 + dimensions);
          const index = new VectorIndex(dimensions, 16, { kernel });
          const rows = Array.from({ length: 1500 }, () => vector(next, dimensions));
          const ids = rows.map((_, i) => `tool_${i}`);
          rows.forEach((row, i) => index.set(ids[i], row));
          for (let trial = 0; trial < 6; trial++) {
            // Unit queries as the index expects, and one of another length: the bounds hold for any query.
            const query = trial === 5 ? vector(next, dimensions).map((x) => 3 * x) : unit(vector(next, dimensions));
            const sorted = bruteForce(index, ids, query, ids.length);
            const exact = ids.map((id, i) => ({ id, score: dot(unit(rows[i]), query) })).sort(compareRanked);
            for (const k of [1, 5, 10, 50, 1500, 1600]) {
              const hits = index.search(query, k);
              assert.deepEqual(hits, sorted.slice(0, k), `${dimensions} dims, k ${k}`);
              assertSameRanking(hits, exact.slice(0, k), `${dimensions} dims, k ${k}, against f64`);
            }
          }
          assert.deepEqual(index.search(unit(vector(next, dimensions)), 0), []);
        }
      });

      it("stays exact on near-duplicates and exact duplicates (ties by id)", () => {
        const next = random(7);
        const dimensions = 384;
        const index = new VectorIndex(dimensions, 8, { kernel });
        const base = vector(next, dimensions);
        const ids: string[] = [];
        for (let i = 0; i < 600; i++) {
          // Rows within quantization error of each other: the first pass cannot separate them, rescoring must.
          const row = i % 3 === 0 ? base : base.map((x) => x + 0.002 * next());
          const id = `near_${(i * 7919) % 600}`;
          index.set(id, row);
          ids.push(id);
        }
        for (let i = 0; i < 400; i++) {
          const id = `far_${i}`;
          index.set(id, vector(next, dimensions));
          ids.push(id);
        }
        for (let trial = 0; trial < 5; trial++) {
          const query = trial === 0 ? unit(base) : unit(base.map((x) => x + 0.5 * next()));
          for (const k of [1, 10, 50, 250]) assert.deepEqual(index.search(query, k), bruteForce(index, ids, query, k));
        }
      });

      it("keeps add, replace and remove right across memory growth", () => {
        const next = random(99);
        const dimensions = 100;
        const index = new VectorIndex(dimensions, 1, { kernel });
        const model = new Map<string, Float32Array>();
        const check = () => {
          assert.equal(index.size, model.size);
          for (let trial = 0; trial < 3; trial++) {
            const query = unit(vector(next, dimensions));
            for (const k of [1, 10, 50]) assert.deepEqual(index.search(query, k), bruteForce(index, model.keys(), query, k));
            for (const [id, row] of model) assert.ok(Math.abs(index.score(id, query)! - dot(unit(row), query)) < 1e-5, id);
          }
        };
        for (let i = 0; i < 3000; i++) {
          const row = vector(next, dimensions);
          index.set(`t${i}`, row);
          model.set(`t${i}`, row);
        }
        check();
        // Remove from the middle (the last row moves into each hole), replace some, then add again past the old size.
        for (let i = 500; i < 2500; i += 2) {
          assert.equal(index.remove(`t${i}`), true);
          model.delete(`t${i}`);
        }
        assert.equal(index.remove("t500"), false);
        assert.equal(index.has("t500"), false);
        assert.equal(index.score("t500", unit(vector(next, dimensions))), undefined);
        for (let i = 0; i < 3000; i += 7) {
          if (!model.has(`t${i}`)) continue;
          const row = vector(next, dimensions);
          index.set(`t${i}`, row);
          model.set(`t${i}`, row);
        }
        check();
        for (let i = 0; i < 4000; i++) {
          const row = vector(next, dimensions);
          index.set(`u${i}`, row);
          model.set(`u${i}`, row);
        }
        check();
        for (const id of [...model.keys()]) {
          index.remove(id);
          model.delete(id);
        }
        assert.deepEqual(index.search(unit(vector(next, dimensions)), 5), []);
        index.set("again", vector(next, dimensions));
        assert.equal(index.search(unit(vector(next, dimensions)), 5)[0].id, "again");
      });

      it("searchMax ranks by the closest of several queries, as a brute-force max does", () => {
        const next = random(31);
        const dimensions = 512;
        const index = new VectorIndex(dimensions, 16, { kernel });
        const ids = Array.from({ length: 2500 }, (_, i) => `tool_${i}`);
        ids.forEach((id) => index.set(id, vector(next, dimensions)));
        const accept = (id: string) => !id.endsWith("3");
        for (const count of [1, 2, 3, 8]) {
          const queries = Array.from({ length: count }, () => unit(vector(next, dimensions)));
          const best = (id: string) => Math.max(...queries.map((query) => index.score(id, query)!));
          for (const filter of [undefined, accept]) {
            const expected = ids
              .filter((id) => !filter || filter(id))
              .map((id) => ({ id, score: best(id) }))
              .sort(compareRanked);
            for (const k of [1, 10, 50]) assert.deepEqual(index.searchMax(queries, k, filter), expected.slice(0, k), `${count} queries, k ${k}`);
          }
          assert.deepEqual(
            index.maxScores(["tool_7", "missing", "tool_0"], queries),
            [best("tool_7"), undefined, best("tool_0")],
          );
        }
        assert.deepEqual(index.searchMax([], 5), []);
      });

      it("applies the accept filter before taking the k best", () => {
        const next = random(5);
        const dimensions = 64;
        const index = new VectorIndex(dimensions, 64, { kernel });
        const ids = Array.from({ length: 2000 }, (_, i) => `${i % 10 === 0 ? "files" : "web"}.tool_${i}`);
        ids.forEach((id) => index.set(id, vector(next, dimensions)));
        const files = (id: string) => id.startsWith("files.");
        for (let trial = 0; trial < 5; trial++) {
          const query = unit(vector(next, dimensions));
          for (const k of [1, 10, 199, 200, 500]) {
            const hits = index.search(query, k, files);
            assert.deepEqual(hits, bruteForce(index, ids, query, k, files));
            assert.ok(hits.every((hit) => files(hit.id)));
          }
          assert.deepEqual(index.search(query, 10, () => false), []);
        }
      });

      it("handles zero vectors and rejects vectors of the wrong length", () => {
        const index = new VectorIndex(5, 2, { kernel });
        index.set("b", new Float32Array(5));
        index.set("a", new Float32Array([1, 0, 0, 0, 0]));
        index.set("c", new Float32Array(5));
        // A zero query ties every row at 0: ids decide.
        assert.deepEqual(index.search(new Float32Array(5), 2), [
          { id: "a", score: 0 },
          { id: "b", score: 0 },
        ]);
        assert.deepEqual(index.search(new Float32Array([0, 1, 0, 0, 0]), 3), [
          { id: "a", score: 0 },
          { id: "b", score: 0 },
          { id: "c", score: 0 },
        ]);
        assert.equal(index.search(new Float32Array([2, 0, 0, 0, 0]), 1)[0].id, "a");
        assert.throws(() => index.set("d", new Float32Array(4)), /4 dimensions in an index of 5/);
        assert.throws(() => index.search(new Float32Array(6), 1), /6 dimensions/);
      });
    });
  }

  for (const kernel of KERNELS) {
    it(`counts the bytes it holds: at least 4 per stored value, growing with rows and shrinking with ids (${kernel})`, () => {
      const next = random(11);
      const index = new VectorIndex(512, 1, { kernel });
      const empty = index.memoryBytes;
      for (let i = 0; i < 100; i++) index.set(`tool_${i}`, vector(next, 512));
      const full = index.memoryBytes;
      assert.ok(full - empty >= 100 * 512 * 4, `${full - empty} bytes for 100 rows of 512 f32`);
      if (index.kernel === "wasm-simd") assert.ok(full - empty >= 100 * 512 * 5, "the int8 copy of each row is counted too");
      index.set("tool_0", vector(next, 512));
      assert.equal(index.memoryBytes, full, "a replaced row takes no more room");
      index.remove("tool_99");
      assert.ok(index.memoryBytes < full, "a removed id's entry is no longer counted");
    });
  }

  it("the JS fallback ranks like the WebAssembly kernel", () => {
    const next = random(2024);
    for (const dimensions of [7, 384, 512]) {
      const wasm = new VectorIndex(dimensions, 8);
      const js = new VectorIndex(dimensions, 8, { kernel: "js" });
      for (let i = 0; i < 3000; i++) {
        const row = vector(next, dimensions);
        wasm.set(`t${i}`, row);
        js.set(`t${i}`, row);
      }
      for (let i = 0; i < 3000; i += 3) {
        wasm.remove(`t${i}`);
        js.remove(`t${i}`);
      }
      const accept = (id: string) => id.endsWith("1") || id.endsWith("7");
      for (let trial = 0; trial < 10; trial++) {
        const query = unit(vector(next, dimensions));
        for (const k of [1, 10, 50]) {
          assertSameRanking(wasm.search(query, k), js.search(query, k), `${dimensions} dims, k ${k}`);
          assertSameRanking(wasm.search(query, k, accept), js.search(query, k, accept), `${dimensions} dims, k ${k}, filtered`);
        }
      }
    }
  });
  it("places each row by its mean cosine to all rows: the one nearest the others is 1, the farthest 0", () => {
    for (const kernel of ["wasm-simd", "js"] as const) {
      const index = new VectorIndex(3, 4, kernel === "js" ? { kernel: "js" } : {});
      index.set("north", new Float32Array([1, 0, 0]));
      index.set("north-east", new Float32Array([1, 1, 0]));
      index.set("east", new Float32Array([0, 1, 0]));
      index.set("up", new Float32Array([0, 0, 1]));
      const places = index.centralities();
      // Mean cosines: north-east (1 + 1 + 2·0.707)/4 is nearest the others, "up" (1/4) the farthest; north and east tie.
      assert.deepEqual([...places].sort((a, b) => a[1] - b[1]), [["up", 0], ["north", 1 / 3], ["east", 1 / 3], ["north-east", 1]], kernel);
      index.remove("north-east");
      assert.equal(index.centralities().get("up"), 0, "recomputed from the rows left");
    }
    assert.equal(new VectorIndex(3).centralities().size, 0);
  });
});
