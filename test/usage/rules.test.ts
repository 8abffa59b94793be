/**
 * Pinned rules (src/usage/rules.ts): what a search may spend on them is bounded by the query cap, whatever the rules.
 * Queries up to `CURATION_LIMITS.ruleQueryChars` characters (after spacing is collapsed, counted in code points) are
 * matched; longer ones are not looked at. The bound is asserted on character comparisons, not on time.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CURATION_LIMITS } from "../../src/usage/curation.js";
import { PinnedRules } from "../../src/usage/rules.js";

const CAP = CURATION_LIMITS.ruleQueryChars;

describe("pinned rules: the query cap", () => {
  it("matches a query of exactly the cap and not one character more", () => {
    const rules = new PinnedRules({ rules: [{ query: "refund*", pin: ["process_refund"] }] });
    const at = "refund " + "x".repeat(CAP - 7);
    assert.equal(at.length, CAP);
    assert.deepEqual(rules.match(at)?.pin, ["process_refund"]);
    assert.equal(rules.match(at + "x"), undefined);
  });

  it("counts characters after spacing is collapsed, and code points rather than UTF-16 units", () => {
    const rules = new PinnedRules({ rules: [{ query: "*b", pin: ["t"] }] });
    // 2 × CAP characters typed, CAP after runs of spaces become one space.
    const spaced = "a  ".repeat(CAP / 2 - 1) + "ab";
    assert.ok(spaced.length > CAP);
    assert.equal(spaced.replace(/\s+/g, " ").length, CAP);
    assert.ok(rules.match(spaced), "spacing does not count against the cap");
    // CAP - 1 emoji and a letter: 2 × CAP - 1 UTF-16 units, but CAP characters.
    const emoji = "😀".repeat(CAP - 1) + "b";
    assert.equal(emoji.length, 2 * CAP - 1);
    assert.ok(rules.match(emoji));
    assert.equal(rules.match("😀" + emoji), undefined);
  });

  it("1,000 rules of the worst shapes stay within rules × (cap + pattern) × 2 comparisons, and a longer query costs none", () => {
    const shapes = [(i: number) => `*b${i}*`, (i: number) => `*${"a".repeat(90)}b${i}*`, (i: number) => `${"*a".repeat(40)}*b${i}*`];
    for (const shape of shapes) {
      const counter = { steps: 0 };
      const patterns = Array.from({ length: CURATION_LIMITS.rules }, (_, i) => shape(i));
      const rules = new PinnedRules({ rules: patterns.map((query) => ({ query, pin: ["t"] })) }, counter);
      assert.equal(rules.match("a".repeat(CAP)), undefined);
      const bound = CURATION_LIMITS.rules * (CAP + CURATION_LIMITS.wordChars) * 2;
      assert.ok(counter.steps >= CURATION_LIMITS.rules * CAP, `${patterns[0]}: every rule scans the query (${counter.steps})`);
      assert.ok(counter.steps <= bound, `${patterns[0]}: ${counter.steps} comparisons > ${bound}`);
      counter.steps = 0;
      assert.equal(rules.match("a".repeat(4096)), undefined);
      assert.equal(counter.steps, 0, "a query over the cap is not looked at");
    }
  });
});
