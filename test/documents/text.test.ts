import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { splitPassages } from "../../src/text/passages.js";
import { makeSnippet } from "../../src/text/snippet.js";

const hasBrokenPair = (s: string) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe("splitPassages", () => {
  it("packs paragraphs up to maxChars and keeps ranges of the original text", () => {
    const text = "One short paragraph.\n\nAnother short one.\n\n\n  A third paragraph here.  ";
    assert.deepEqual(splitPassages(text, { maxChars: 1000 }), [{ start: 0, end: text.trimEnd().length }]);
    const parts = splitPassages(text, { maxChars: 50 });
    assert.deepEqual(parts.map((p) => text.slice(p.start, p.end)), ["One short paragraph.\n\nAnother short one.", "A third paragraph here."]);
  });

  it("cuts an over-long paragraph at sentence ends, and one empty passage for an empty text", () => {
    const sentence = "This sentence is about sixty characters long, more or less. ";
    const text = sentence.repeat(40);
    const parts = splitPassages(text, { maxChars: 300 });
    assert.ok(parts.length >= 8);
    for (const p of parts) {
      assert.ok(p.end - p.start <= 300);
      assert.ok(text.slice(p.start, p.end).endsWith("less."));
    }
    assert.deepEqual(splitPassages(""), [{ start: 0, end: 0 }]);
  });

  it("never splits a surrogate pair in text without spaces", () => {
    const text = "😀".repeat(500);
    for (const p of splitPassages(text, { maxChars: 101 })) assert.ok(!hasBrokenPair(text.slice(p.start, p.end)));
  });
});

describe("makeSnippet", () => {
  const isWord = (w: string) => (word: string) => word.toLowerCase() === w;

  it("starts at the sentence of the first matching word, within 240 characters, with ellipses", () => {
    const text = `${"Lorem ipsum dolor sit amet. ".repeat(30)}The warranty covers parts for two years. ${"More filler text follows here. ".repeat(20)}`;
    const { snippet, offset } = makeSnippet(text, { start: 0, end: text.length }, isWord("warranty"));
    assert.equal(offset, text.indexOf("The warranty"));
    assert.ok(snippet.startsWith("…The warranty covers parts"));
    assert.ok(snippet.endsWith("…"));
    assert.ok(snippet.length <= 240);
    assert.ok(!/\s…$/.test(snippet), "cut at a word boundary");
  });

  it("starts at the word itself when its sentence began long before, and at the range start when nothing matches", () => {
    const text = `Intro. ${"word ".repeat(40)}needle and more words after it`;
    assert.ok(makeSnippet(text, { start: 0, end: text.length }, isWord("needle")).snippet.startsWith("…needle and more"));
    assert.equal(makeSnippet("Short text.", { start: 0, end: 11 }, isWord("absent")).snippet, "Short text.");
  });

  it("never splits a surrogate pair and respects maxChars", () => {
    const text = `${"🎉x ".repeat(50)}match ${"😀🎉".repeat(300)}`;
    for (const maxChars of [240, 100, 57, 12]) {
      const { snippet } = makeSnippet(text, { start: 0, end: text.length }, isWord("match"), { maxChars });
      assert.ok(snippet.length <= maxChars, `${snippet.length} > ${maxChars}`);
      assert.ok(!hasBrokenPair(snippet), snippet);
    }
  });
});
