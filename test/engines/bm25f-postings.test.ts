import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PendingPostings } from "../../src/engines/bm25f-pending.js";
import { PostingStore } from "../../src/engines/bm25f-postings.js";

/** Term `t`'s entries as [slot, tf] pairs. */
function entries(store: PostingStore, t: number): [number, number][] {
  const out: [number, number][] = [];
  for (let i = store.start[t]; i < store.start[t] + store.count[t]; i++) out.push([store.slots[i], store.tfs[i]]);
  return out;
}

describe("PostingStore", () => {
  it("keeps every list sorted and equal to a plain model through inserts, deletes, appends and compactions", () => {
    let seed = 11;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
    const terms = 40;
    const model = Array.from({ length: terms }, () => new Map<number, number>());
    const store = new PostingStore();
    store.addTerms(terms);
    let nextSlot = 0;
    for (let round = 0; round < 300; round++) {
      const op = random(10);
      if (op < 3) {
        // A bulk or a few new slots, all above those listed, through the pending list.
        const pending = new PendingPostings();
        pending.reserveTerms(terms);
        for (let n = 1 + random(op === 0 ? 200 : 4); n > 0; n--, nextSlot++) {
          for (const t of new Set(Array.from({ length: 1 + random(5) }, () => random(terms)))) {
            pending.push(t, nextSlot, 1 + random(9));
            model[t].set(nextSlot, pending.tfs[pending.size - 1]);
          }
        }
        store.append(pending);
      } else if (op < 6 && nextSlot > 0) {
        const t = random(terms);
        const slot = random(nextSlot);
        if (!model[t].has(slot)) {
          store.insert(t, slot, 7);
          model[t].set(slot, 7);
        }
      } else if (nextSlot > 0) {
        const t = random(terms);
        const slot = random(nextSlot);
        assert.equal(store.delete(t, slot), model[t].delete(slot));
      }
      for (let t = 0; t < terms; t++) {
        assert.deepEqual(entries(store, t), [...model[t]].sort((a, b) => a[0] - b[0]), `round ${round}, term ${t}`);
      }
    }
  });

  it("reads a saved state's arrays in place and copies them only on the first change", () => {
    const offsets = Int32Array.of(0, 2, 3);
    const slots = Int32Array.of(0, 2, 1);
    const tfs = Int32Array.of(1, 1, 3);
    const store = PostingStore.fromLists(offsets, slots, tfs);
    assert.equal(store.slots, slots);
    assert.deepEqual(entries(store, 0), [[0, 1], [2, 1]]);
    assert.equal(store.find(1, 1), 2);
    store.insert(0, 1, 5);
    assert.notEqual(store.slots, slots);
    assert.deepEqual(entries(store, 0), [[0, 1], [1, 5], [2, 1]]);
    assert.deepEqual([...slots], [0, 2, 1], "the saved arrays are left as they were");
    assert.ok(store.delete(1, 1));
    assert.deepEqual([...tfs], [1, 1, 3]);
  });

  it("counts only its own buffers: views of a snapshot are counted with the snapshot", () => {
    const store = PostingStore.fromLists(Int32Array.of(0, 1), Int32Array.of(0), Int32Array.of(1));
    const viewed = store.bytes;
    store.insert(0, 3, 1);
    assert.ok(store.bytes > viewed);
  });
});
