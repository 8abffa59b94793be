import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { asciiChunkWords } from "../../src/text/filters/ascii-chunk.js";
import { foldDiacritics } from "../../src/text/filters/fold-diacritics.js";
import { lowercase } from "../../src/text/filters/lowercase.js";
import { splitIdentifiers } from "../../src/text/filters/split-identifiers.js";
import { stemEnglish, stemWord } from "../../src/text/filters/stem.js";
import { ENGLISH_STOPWORDS, removeStopwords } from "../../src/text/filters/stopwords.js";
import { chunkTexts } from "../../src/text/filters/tokenize.js";
import type { Token, TokenFilter } from "../../src/text/token.js";
import { fuzzParameters } from "../fuzz/settings.js";

/** The token pipeline the fused scan stands for, with or without stopwords and stemming. */
function pipeline(chunk: string, stopwords: boolean, stem: boolean): string[] {
  const filters: TokenFilter[] = [splitIdentifiers, lowercase, foldDiacritics];
  if (stopwords) filters.push(removeStopwords(ENGLISH_STOPWORDS));
  if (stem) filters.push(stemEnglish());
  let tokens: Token[] = [{ text: chunk }];
  for (const filter of filters) tokens = filter(tokens);
  return tokens.map((t) => t.text);
}

function fused(chunk: string, stopwords: boolean, stem: boolean): string[] {
  const out: string[] = [];
  asciiChunkWords(chunk, (word, whole) => {
    if (whole) out.push(word);
    else if (!(stopwords && ENGLISH_STOPWORDS.has(word))) out.push(stem ? stemWord(word) : word);
  });
  return out;
}

describe("asciiChunkWords", () => {
  it("gives the token pipeline's terms for any ASCII chunk, with and without stopwords and stemming", () => {
    // Words with every case and digit mix, joined by separators; plus real-looking identifiers and stopwords.
    const part = fc.oneof(fc.stringMatching(/^[A-Za-z0-9]{1,12}$/), fc.constantFrom("the", "For", "API", "v2", "HTTPServer", "getStockLevel", "a", "I", "7", "running", "IDs"));
    const chunk = fc.tuple(fc.array(part, { minLength: 1, maxLength: 5 }), fc.array(fc.constantFrom(".", "_", "-", "/", ":"), { minLength: 4, maxLength: 4 }))
      .map(([parts, separators]) => parts.map((p, i) => (i === 0 ? p : separators[i % 4] + p)).join(""));
    fc.assert(fc.property(chunk, fc.boolean(), fc.boolean(), (text, stopwords, stem) => {
      assert.deepEqual(fused(text, stopwords, stem), pipeline(text, stopwords, stem), text);
    }), fuzzParameters());
  });

  it("agrees on every chunk of arbitrary ASCII text as the tokenizer cuts it", () => {
    fc.assert(fc.property(fc.stringMatching(/^[ -~]{0,80}$/), (text) => {
      for (const chunk of chunkTexts(text)) assert.deepEqual(fused(chunk, true, true), pipeline(chunk, true, true), chunk);
    }), fuzzParameters());
  });

  it("splits identifiers as the filters do", () => {
    assert.deepEqual(fused("HTTPServer2Config", false, false), ["http", "server", "2", "config", "httpserver2config"]);
    assert.deepEqual(fused("orders.v2.list", false, false), ["orders", "v2", "2", "list", "ordersv2list"]);
    assert.deepEqual(fused("a", true, true), []);
    assert.deepEqual(fused("7", true, true), ["7"]);
    assert.deepEqual(fused("the_user", true, true), ["user", "theuser"]);
  });
});
