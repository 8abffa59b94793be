import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareRanked, topK } from "../../src/engines/top-k.js";
import { boundedEditDistance } from "../../src/engines/edit-distance.js";

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
