import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ChunkTerms } from "../../src/text/chunk-terms.js";
import { ENGLISH_STOPWORDS } from "../../src/text/filters/stopwords.js";
import { chunkTexts } from "../../src/text/filters/tokenize.js";
import { IdList } from "../../src/text/term-ids.js";
import { fuzzParameters } from "../fuzz/settings.js";

/**
 * Characters of many kinds: caseless scripts (Han, kana, with a voicing mark precomposed and apart), cased ones with
 * special lower-casings (final sigma, dotted I, titlecase, sharp s), letters that fold, digits outside ASCII, a
 * mathematical letter and digit beyond the BMP, a combining mark, ASCII letters and digits, and the separators.
 */
const CHARACTERS = ["入", "力", "が", "か", "\u3099", "メ", "ー", "é", "É", "ß", "İ", "ǅ", "đ", "т", "Т", "σ", "Σ", "ς", "ω", "٣", "Ａ", "ｂ", "𝐀", "𝟘", "\u0301", "a", "Z", "e", "s", "1", "_", "-", ".", "/", ":", " "];

/** Chunks as an analyzer meets them: non-ASCII text, normalized, cut by the Unicode tokenizer. */
const chunks = fc.array(fc.constantFrom(...CHARACTERS), { minLength: 1, maxLength: 14 })
  .map((chars) => chunkTexts(chars.join("").normalize("NFKC"), false));

describe("ChunkTerms", () => {
  it("gives a non-ASCII chunk the token pipeline's terms, split or left whole, with and without stopwords and stemming", () => {
    fc.assert(fc.property(chunks, fc.boolean(), fc.boolean(), (list, stopwords, stem) => {
      const terms = new ChunkTerms(stopwords ? ENGLISH_STOPWORDS : undefined, stem);
      for (const chunk of list) assert.deepEqual(terms.terms(chunk), terms.tokens(chunk).map((t) => t.text), chunk);
    }), fuzzParameters());
  });

  it("resolves a build's chunks to the ids of those terms", () => {
    fc.assert(fc.property(chunks, (list) => {
      const dictionary = new Map<string, number>();
      const resolve = (term: string) => dictionary.get(term) ?? dictionary.set(term, dictionary.size).get(term)!;
      const terms = new ChunkTerms(ENGLISH_STOPWORDS, true);
      const ids = terms.ids(resolve);
      for (const chunk of list) {
        const out = new IdList();
        ids(chunk, out);
        assert.deepEqual([...out.ids.subarray(0, out.length)], terms.tokens(chunk).map((t) => resolve(t.text)), chunk);
      }
    }), fuzzParameters());
  });

  it("keeps a caseless phrase whole, folds and stems a lower-case word, and drops a lone character", () => {
    const terms = new ChunkTerms(ENGLISH_STOPWORDS, true);
    assert.deepEqual(terms.terms("入力されたメッセージ"), ["入力されたメッセーシ"], "one term; voicing marks fold away");
    assert.deepEqual(terms.terms("ガイド"), ["カイト"]);
    assert.deepEqual(terms.terms("récupères"), ["recuper"]);
    assert.deepEqual(terms.terms("入"), []);
    assert.deepEqual(terms.terms("Récupère"), ["recuper"], "an upper-case letter takes the pipeline, to the same end");
  });
});
