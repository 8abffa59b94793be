import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { stem as porter2 } from "porter2";
import { stemOnce, stemWord } from "../../src/text/filters/stem.js";
import { fuzzParameters } from "../fuzz/settings.js";

describe("stemWord", () => {
  it("is Porter2's stem, which leaves a word without ASCII characters as it is (so such words skip it)", () => {
    const letters = ["入", "メ", "é", "ß", "т", "σ", "ω", "𝐀", "\u0301", "ی", "a", "e", "s", "y", "'", "i", "n", "g", "l"];
    const word = fc.array(fc.constantFrom(...letters), { minLength: 1, maxLength: 12 }).map((c) => c.join(""));
    fc.assert(fc.property(word, (text) => {
      if (!/[\x00-\x7f]/.test(text)) assert.equal(porter2(text), text);
      assert.equal(stemWord(text), text.length > 3 && !/\d/.test(text) ? porter2(text) : text);
      assert.equal(stemOnce(text), stemWord(text), "the memo changes nothing");
    }), fuzzParameters());
  });

  it("stems English words", () => {
    assert.equal(stemWord("running"), "run");
    assert.equal(stemWord("forecasts"), "forecast");
    assert.equal(stemWord("données"), "donné", "a word with ASCII letters goes through Porter2");
    assert.equal(stemWord("メッセージ"), "メッセージ");
  });
});
