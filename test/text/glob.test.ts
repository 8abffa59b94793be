/**
 * The non-backtracking glob matcher (src/text/glob.ts): it agrees with a plain dynamic-programming reference on random
 * small globs and texts, and hostile globs against long texts stay within a bound on character comparisons that is
 * linear in the text for `*`-only globs (the rules) and text × pattern with `?` — where a backtracking RegExp of the
 * same glob needs exponentially many steps.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { compileGlob, matchGlob } from "../../src/text/glob.js";

/** The textbook O(n·m) table: does text[0..i) match pattern[0..j)? Written for clarity, not speed. */
function reference(pattern: string, text: string, questionMark: "any" | "literal"): boolean {
  const p = [...pattern];
  const t = [...text];
  let row = Array.from({ length: p.length + 1 }, (_, j) => p.slice(0, j).every((c) => c === "*"));
  for (let i = 1; i <= t.length; i++) {
    const next = [false];
    for (let j = 1; j <= p.length; j++) {
      const c = p[j - 1];
      if (c === "*") next[j] = next[j - 1] || row[j];
      else next[j] = row[j - 1] && (c === t[i - 1] || (c === "?" && questionMark === "any"));
    }
    row = next;
  }
  return row[p.length];
}

const alphabet = ["a", "b", "*", "?", "é", "😀"];
const smallGlob = fc.array(fc.constantFrom(...alphabet), { maxLength: 10 }).map((c) => c.join(""));
const smallText = fc.array(fc.constantFrom("a", "b", "?", "*", "é", "😀"), { maxLength: 14 }).map((c) => c.join(""));

describe("glob matcher", () => {
  it("matches whole texts: * is any run, ? one character (a code point), the rest literal", () => {
    assert.ok(matchGlob("read_*", "read_file"));
    assert.ok(!matchGlob("read_*", "xread_file"));
    assert.ok(matchGlob("list_?irectory", "list_directory"));
    assert.ok(matchGlob("*_secret*", "read_secret_file"));
    assert.ok(!matchGlob("a*a", "a"), "the first and the last segment do not overlap");
    assert.ok(matchGlob("a*a", "aa"));
    assert.ok(matchGlob("?", "😀"));
    assert.ok(!matchGlob("??", "😀"));
    assert.ok(matchGlob("a.b(c)+[d]", "a.b(c)+[d]"));
    assert.ok(!matchGlob("a.b", "axb"));
    assert.ok(matchGlob("", ""));
    assert.ok(!matchGlob("", "a"));
    assert.ok(matchGlob("***", ""));
  });

  it("with questionMark literal, ? is itself", () => {
    assert.ok(matchGlob("refund?", "refund?", { questionMark: "literal" }));
    assert.ok(!matchGlob("refund?", "refunds", { questionMark: "literal" }));
  });

  it("agrees with the reference on random small globs and texts (property)", () => {
    fc.assert(
      fc.property(smallGlob, smallText, fc.constantFrom("any" as const, "literal" as const), (pattern, text, questionMark) => {
        assert.equal(matchGlob(pattern, text, { questionMark }), reference(pattern, text, questionMark), `${JSON.stringify(pattern)} on ${JSON.stringify(text)}`);
      }),
      { numRuns: 3000, seed: 38 },
    );
  });

  it("the issue's rule against 900 letters a: a handful of comparisons per character", () => {
    const hostile = `${"*a".repeat(20)}*b`;
    const counter = { steps: 0 };
    const match = compileGlob(hostile, { questionMark: "literal", counter });
    assert.equal(match("a".repeat(900)), false);
    assert.ok(counter.steps <= 2 * 900 + hostile.length, `${counter.steps} comparisons`);
    assert.equal(match(`${"a".repeat(899)}b`), true);
  });

  it("hostile *-only globs against long texts stay linear in the text (property)", () => {
    const piece = fc.constantFrom("*", "a", "b", "aa", "ab", "*a", "a*", "ba");
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 40 }), fc.integer({ min: 500, max: 5000 }), fc.constantFrom("a", "b", "ab"), (pieces, length, unit) => {
        const pattern = pieces.join("");
        const text = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
        const counter = { steps: 0 };
        compileGlob(pattern, { questionMark: "literal", counter })(text);
        // Each segment's KMP scan covers its own stretch of the text (amortized twice), plus the fixed ends.
        assert.ok(counter.steps <= 2 * text.length + 2 * pattern.length, `${counter.steps} comparisons for ${pattern} on ${text.length} characters`);
      }),
      { numRuns: 200, seed: 38 },
    );
  });

  it("globs with ? stay within text × pattern comparisons (property)", () => {
    const piece = fc.constantFrom("*", "?", "a", "?a", "a?", "*?");
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 30 }), fc.integer({ min: 200, max: 2000 }), (pieces, length) => {
        const pattern = pieces.join("");
        const text = "a".repeat(length);
        const counter = { steps: 0 };
        const matched = compileGlob(pattern, { counter })(text);
        assert.equal(matched, reference(pattern, text, "any"));
        assert.ok(counter.steps <= (text.length + 1) * (pattern.length + 1), `${counter.steps} comparisons`);
      }),
      { numRuns: 100, seed: 38 },
    );
  });
});
