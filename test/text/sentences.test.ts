import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_QUERY_SENTENCES, splitSentences } from "../../src/text/sentences.js";

test("a request of several sentences splits at sentence ends", () => {
  assert.deepEqual(splitSentences("Track my package CA107308006SI.  Also, will it rain in Lyon tomorrow? Thanks!"), [
    "Track my package CA107308006SI.",
    "Also, will it rain in Lyon tomorrow?",
    "Thanks!",
  ]);
});

test("abbreviations and decimals do not end a sentence", () => {
  assert.deepEqual(splitSentences("We invest in Apple Inc. and need its 2.5% yield. Show the data."), [
    "We invest in Apple Inc. and need its 2.5% yield.",
    "Show the data.",
  ]);
});

test("one sentence, no punctuation, punctuation only, empty", () => {
  assert.deepEqual(splitSentences("weather in paris"), ["weather in paris"]);
  assert.deepEqual(splitSentences("Hello... ?! world"), ["Hello... ?!", "world"]);
  assert.deepEqual(splitSentences(" ... ?! "), []);
  assert.deepEqual(splitSentences(""), []);
});

test("sentences past the limit stay in the last one", () => {
  const text = Array.from({ length: 11 }, (_, i) => `Sentence number ${i + 1}.`).join(" ");
  const parts = splitSentences(text);
  assert.equal(parts.length, MAX_QUERY_SENTENCES);
  assert.equal(parts[MAX_QUERY_SENTENCES - 1], "Sentence number 8. Sentence number 9. Sentence number 10. Sentence number 11.");
  assert.deepEqual(splitSentences("A one. B two. C three.", 2), ["A one.", "B two. C three."]);
});
