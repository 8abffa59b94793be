import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { listOf, TermDictionary } from "../../src/engines/bm25f-terms.js";

describe("TermDictionary", () => {
  it("gives each new term the next id and finds it again", () => {
    const terms = new TermDictionary();
    assert.equal(terms.intern("rain"), 0);
    assert.equal(terms.intern("snow"), 1);
    assert.equal(terms.intern("rain"), 0);
    assert.equal(terms.get("snow"), 1);
    assert.equal(terms.get("hail"), undefined);
    assert.equal(terms.term(1), "snow");
    assert.equal(terms.size, 2);
  });

  it("decodes saved terms on the first lookup only, and keeps numbering after them", () => {
    let reads = 0;
    const saved = listOf(["alpha", "beta"]);
    const counting = { length: saved.length, get: (i: number) => (reads++, saved.get(i)) };
    const terms = TermDictionary.of(counting);
    assert.equal(terms.size, 2);
    assert.equal(terms.decoded, false);
    assert.equal(reads, 0);
    assert.equal(terms.get("beta"), 1);
    assert.equal(reads, 2);
    assert.equal(terms.intern("gamma"), 2);
    assert.ok(terms.stringBytes > 0);
  });

  it("keeps the first id of a term a damaged list names twice", () => {
    const terms = TermDictionary.of(listOf(["a", "b", "a"]));
    assert.equal(terms.get("a"), 0);
    assert.equal(terms.size, 3);
  });
});
