import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createAnalyzer } from "../../src/text/analyzer.js";
import { foldText } from "../../src/text/filters/fold-diacritics.js";
import fc from "fast-check";
import { splitIdentifiers, subParts } from "../../src/text/filters/split-identifiers.js";
import { fuzzParameters } from "../fuzz/settings.js";
import { tokenize } from "../../src/text/filters/tokenize.js";
import { type BulkAnalysis, IdList } from "../../src/text/term-ids.js";

/** The ids a bulk analysis appends for one text. */
function idsOf(bulk: BulkAnalysis, text: string): number[] {
  const out = new IdList();
  out.push(-7); // appended after what the list holds
  bulk(text, out);
  assert.equal(out.ids[0], -7);
  return [...out.ids.subarray(1, out.length)];
}

const split = (text: string) => splitIdentifiers(tokenize(text)).map((t) => (t.keyword ? `[${t.text}]` : t.text));

describe("identifier splitting", () => {
  it("splits ASCII parts by character code exactly as the Unicode case-boundary rule does", () => {
    const rule = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;
    fc.assert(fc.property(fc.stringMatching(/^[A-Za-z0-9]{1,16}$/), (part) => {
      assert.deepEqual(subParts(part), part.split(rule).filter(Boolean));
    }), fuzzParameters());
  });

  it("splits parts of any script as the Unicode case-boundary rule does", () => {
    const rule = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;
    const part = fc.array(fc.constantFrom("入", "メ", "é", "É", "ß", "ǅ", "т", "Т", "σ", "Σ", "٣", "𝐀", "𝟘", "\u0301", "a", "Z", "1"), { minLength: 1, maxLength: 12 }).map((c) => c.join(""));
    fc.assert(fc.property(part, (text) => {
      assert.deepEqual(subParts(text), text.split(rule).filter(Boolean));
    }), fuzzParameters());
  });

  it("splits snake, camel, kebab and dotted identifiers and keeps the joined form", () => {
    assert.deepEqual(split("get_stock_level"), ["get", "stock", "level", "[getstocklevel]"]);
    assert.deepEqual(split("getStockLevel"), ["get", "Stock", "Level", "[getStockLevel]"]);
    assert.deepEqual(split("HTTPServer2Config"), ["HTTP", "Server", "2", "Config", "[HTTPServer2Config]"]);
    assert.deepEqual(split("stock-level"), ["stock", "level", "[stocklevel]"]);
    assert.deepEqual(split("orders.v2.list"), ["orders", "v2", "2", "list", "[ordersv2list]"]);
  });

  it("leaves plain words alone and drops lone letters", () => {
    assert.deepEqual(split("Weather in Paris"), ["Weather", "in", "Paris"]);
    assert.deepEqual(split("API's"), ["API"]);
  });
});

describe("analyzer", () => {
  const analyzer = createAnalyzer();

  it("gives every spelling of an identifier the same terms", () => {
    const forms = ["get_stock_level", "getStockLevel", "get-stock-level", "GetStockLevel"].map((s) => analyzer.analyze(s));
    for (const terms of forms) assert.deepEqual(terms, ["get", "stock", "level", "getstocklevel"]);
  });

  it("folds diacritics, Vietnamese included", () => {
    assert.equal(foldText("lấy thông tin khách hàng"), "lay thong tin khach hang");
    assert.equal(foldText("đơn hàng đã giao"), "don hang da giao");
    assert.deepEqual(analyzer.analyze("Lấy thông tin khách hàng"), analyzer.analyze("Lay thong tin khach hang"));
    assert.deepEqual(analyzer.analyze("Crème BRÛLÉE straße"), ["creme", "brule", "strass"]);
  });

  it("never makes an empty term, even from a word of combining marks alone (found by test/fuzz)", () => {
    assert.deepEqual(analyzer.analyze("\u{1D15E}"), []);
    assert.deepEqual(analyzer.analyze("a\u{1D15E}b tune"), ["b", "tune"]);
  });

  it("does not let the English stemmer mangle short non-English words", () => {
    assert.deepEqual(analyzer.analyze("lay day tuy quy nhieu khoe"), ["lay", "day", "tuy", "quy", "nhieu", "khoe"]);
  });

  it("stems English, drops stopwords but keeps tool verbs, keeps numbers", () => {
    assert.deepEqual(analyzer.analyze("Get the running forecasts for 2024"), ["get", "run", "forecast", "2024"]);
  });

  it("normalizes compatibility characters (full-width letters)", () => {
    assert.deepEqual(analyzer.analyze("ｗｅａｔｈｅｒ"), ["weather"]);
  });

  it("is configurable: stemming and stopwords can be turned off", () => {
    const raw = createAnalyzer({ stem: false, stopwords: false });
    assert.deepEqual(raw.analyze("the running dogs"), ["the", "running", "dogs"]);
  });

  it("runs extra filters on the whole stream", () => {
    const dropCity = createAnalyzer({ filters: [(tokens) => tokens.filter((t) => t.text !== "weather")] });
    assert.deepEqual(dropCity.analyze("weather forecast"), ["forecast"]);
  });

  it("bulkIds gives the terms of analyze as the resolver's ids, chunk memo or not, stream filters or not", () => {
    const texts = ["getStockLevel for Lấy thông tin", "the running forecasts for 2024", "", "ｗｅａｔｈｅｒ weather WEATHER", "get_stock_level, getStockLevel"];
    for (const analyzing of [analyzer, createAnalyzer({ filters: [(tokens) => tokens.filter((t) => t.text !== "weather")] })]) {
      const vocabulary: string[] = [];
      const bulk = analyzing.bulkIds!((term) => (vocabulary.includes(term) ? vocabulary.indexOf(term) : vocabulary.push(term) - 1));
      for (const text of [...texts, ...texts]) {
        assert.deepEqual(idsOf(bulk, text).map((id) => vocabulary[id]), analyzing.analyze(text), text);
      }
    }
    fc.assert(fc.property(fc.array(fc.string({ unit: "grapheme" }), { maxLength: 8 }), (batch) => {
      const vocabulary: string[] = [];
      const bulk = analyzer.bulkIds!((term) => vocabulary.push(term) - 1);
      for (const text of batch) assert.deepEqual(idsOf(bulk, text).map((id) => vocabulary[id]), analyzer.analyze(text));
    }), fuzzParameters());
    // ASCII text takes the fused scan (see ascii-chunk.test.ts): identifiers, separators at the ends and doubled, many repeats.
    const asciiText = fc.stringMatching(/^[A-Za-z0-9 ._\-/:,;()]{0,60}$/);
    fc.assert(fc.property(fc.array(asciiText, { maxLength: 12 }), (batch) => {
      const vocabulary: string[] = [];
      const bulk = analyzer.bulkIds!((term) => vocabulary.push(term) - 1);
      for (const text of [...batch, ...batch]) assert.deepEqual(idsOf(bulk, text).map((id) => vocabulary[id]), analyzer.analyze(text), text);
    }), fuzzParameters());
  });
});

describe("analyzer memo", () => {
  it("counts the chunks it remembers and stays bounded however many distinct words it meets", () => {
    const analyzer = createAnalyzer();
    assert.equal(analyzer.memoryBytes!(), 0);
    analyzer.analyze("weather forecast");
    const two = analyzer.memoryBytes!();
    assert.ok(two > 0);
    let most = 0;
    for (let i = 0; i < 20_000; i++) {
      analyzer.analyze(`word${i}x`);
      most = Math.max(most, analyzer.memoryBytes!());
    }
    assert.ok(most < 8192 * 400, `at most the limit's worth of entries (${most} bytes)`);
    assert.deepEqual(analyzer.analyze("weather forecast"), ["weather", "forecast"]);
  });

  it("gives a bulk build the same terms without filling the memo", () => {
    const analyzer = createAnalyzer();
    const ids = new Map<string, number>();
    const bulk = analyzer.bulkIds!((term) => ids.get(term) ?? (ids.set(term, ids.size), ids.size - 1));
    const terms = idsOf(bulk, "getStockLevel of items").map((id) => [...ids.keys()][id]);
    assert.equal(analyzer.memoryBytes!(), 0);
    assert.deepEqual(terms, analyzer.analyze("getStockLevel of items"));
  });
});
