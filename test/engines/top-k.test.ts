import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareRanked, topK } from "../../src/engines/top-k.js";
import fc from "fast-check";
import { boundedEditDistance } from "../../src/engines/edit-distance.js";
import { fuzzParameters } from "../fuzz/settings.js";

describe("topK", () => {
  it("returns the k best, ties broken by id, same as a full sort", () => {
    const items = Array.from({ length: 500 }, (_, i) => ({ id: `t${(i * 7919) % 500}`, score: (i * 31) % 17 }));
    assert.deepEqual(topK(items, 10), [...items].sort(compareRanked).slice(0, 10));
    assert.deepEqual(topK(items, 0), []);
    assert.equal(topK(items, 1000).length, 500);
  });
});

describe("boundedEditDistance", () => {
  it("counts edits and transpositions up to the bound", () => {
    assert.equal(boundedEditDistance("weather", "wether", 2), 1);
    assert.equal(boundedEditDistance("weather", "waether", 2), 1);
    assert.equal(boundedEditDistance("kitten", "sitting", 3), 3);
    assert.equal(boundedEditDistance("kitten", "sitting", 1), 2);
    assert.equal(boundedEditDistance("same", "same", 0), 0);
  });
});

/** Optimal string alignment distance, the textbook full table, as the reference. */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

describe("boundedEditDistance (property)", () => {
  it("equals the full-table distance within the bound and exceeds the bound otherwise, whatever lengths came before (its rows are reused)", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "b", "c", "é"), maxLength: 12 });
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text, fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 5 }), fc.boolean(), (pairs, long) => {
        if (long) boundedEditDistance("x".repeat(150), "y".repeat(149), 2);
        for (const [a, b, max] of pairs) {
          const [found, exact] = [boundedEditDistance(a, b, max), osa(a, b)];
          // Within the bound it is exact; beyond it, only "more than max" is promised.
          if (exact <= max) assert.equal(found, exact, `${a} ${b} ${max}`);
          else assert.ok(found > max, `${a} ${b} ${max}: ${found}`);
        }
      }),
      fuzzParameters(300),
    );
  });
});
