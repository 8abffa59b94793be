import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ScoreHeap } from "../../src/engines/score-heap.js";
import { fuzzParameters } from "../fuzz/settings.js";

describe("ScoreHeap", () => {
  it("knows the k-th best score while scores only grow, a slot kept once however often it rises", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 39 }), fc.integer({ min: 1, max: 5 })), { maxLength: 200 }),
        (k, additions) => {
          const scores = new Float64Array(40);
          const heap = new ScoreHeap(scores, 40);
          heap.reset(k);
          for (const [slot, amount] of additions) {
            scores[slot] += amount;
            heap.offer(slot);
            const sorted = [...scores].filter((s) => s > 0).sort((a, b) => b - a);
            assert.equal(heap.floor(), sorted.length < k ? -Infinity : sorted[k - 1]);
            assert.equal(new Set(heap.members()).size, heap.members().length);
          }
        },
      ),
      fuzzParameters(200),
    );
  });

  it("starts empty again after reset, with any k", () => {
    const scores = new Float64Array(8);
    const heap = new ScoreHeap(scores, 8);
    heap.reset(2);
    for (const slot of [1, 2, 3]) {
      scores[slot] = slot;
      heap.offer(slot);
    }
    assert.equal(heap.floor(), 2);
    scores.fill(0);
    heap.reset(1);
    assert.equal(heap.floor(), -Infinity);
    scores[5] = 0.5;
    heap.offer(5);
    assert.equal(heap.floor(), 0.5);
    assert.deepEqual([...heap.members()], [5]);
    heap.reset(0);
    heap.offer(5);
    assert.equal(heap.floor(), Infinity, "nothing ranks among the best 0");
    assert.equal(heap.members().length, 0);
  });
});

describe("ScoreHeap with ties", () => {
  it("keeps the exact k best of every slot offered, equal scores in the tie order, best first", () => {
    let seed = 3;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
    const n = 200;
    const scores = new Float64Array(n);
    for (let slot = 0; slot < n; slot++) scores[slot] = 1 + random(6); // many equal scores
    const ids = Array.from({ length: n }, (_, slot) => `id${String(random(1000)).padStart(4, "0")}-${slot}`);
    const heap = new ScoreHeap(scores, n, (a, b) => ids[a] > ids[b]);
    for (const k of [1, 5, 17, 50]) {
      heap.reset(k);
      for (let slot = 0; slot < n; slot++) heap.offer(slot);
      const expected = Array.from({ length: n }, (_, slot) => slot)
        .sort((a, b) => scores[b] - scores[a] || (ids[a] < ids[b] ? -1 : 1))
        .slice(0, k);
      assert.deepEqual(heap.ranked(), expected, `k = ${k}`);
    }
  });
});
