/**
 * Property tests of the text analyzer (any Unicode string) and the regex engine (any pattern up to the limit and a
 * little past it): no crash, no hang, the same answer twice; a refused pattern is a ToolsearchError with its code.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { compilePattern, MAX_PATTERN_LENGTH, RegexIndex } from "../../src/engines/regex.js";
import { createAnalyzer } from "../../src/text/analyzer.js";
import { anyText, fuzzParameters, onlyCodedErrors, wordyText } from "./settings.js";

describe("text analyzer (property)", () => {
  const analyzer = createAnalyzer();
  const plain = createAnalyzer({ stopwords: false, stem: false });

  it("turns any string into non-empty string terms, the same way every time", () => {
    fc.assert(
      fc.property(fc.oneof(anyText(400), wordyText(30), fc.string({ unit: "grapheme", maxLength: 200 })), (text) => {
        for (const a of [analyzer, plain]) {
          const terms = a.analyze(text);
          assert.ok(Array.isArray(terms));
          for (const term of terms) assert.ok(typeof term === "string" && term.length > 0, JSON.stringify(term));
          assert.deepEqual(a.analyze(text), terms);
        }
      }),
      fuzzParameters(300),
    );
  });
});

/** Regex syntax pieces, valid and not, so that generated patterns reach RE2's parser in interesting states. */
const patternPiece = fc.oneof(
  fc.constantFrom("(", ")", "[", "]", "{", "}", "{2,3}", "{,", "*", "+", "?", "*?", "|", "^", "$", ".", "\\", "\\d", "\\w", "\\b", "\\Z", "\\z", "\\1"),
  fc.constantFrom("(?i)", "(?<=", "(?<!", "(?=", "(?!", "(?>", "(?P<n>", "(?P=n)", "(?:", "[^a-z]", "[[:alpha:]]", "\\p{L}", "\\pN", "\\x{1F600}", "\\Q.*\\E"),
  fc.constantFrom("weather", "get_", "stock", "é", "東京", "😀"),
  anyText(3),
);
const pattern = fc.oneof(
  fc.array(patternPiece, { maxLength: 40 }).map((parts) => parts.join("")),
  anyText(MAX_PATTERN_LENGTH + 20),
  fc.integer({ min: MAX_PATTERN_LENGTH - 2, max: MAX_PATTERN_LENGTH + 2 }).map((n) => "a".repeat(n)),
);

describe("regex engine (property)", () => {
  const items = [
    { id: "get_weather", fields: ["get_weather", "Current weather in a city (東京, Paris) 😀", "city\nunit"] },
    { id: "get_stock_price", fields: ["get_stock_price", "Latest price of a stock", "ticker\nsymbol"] },
    { id: "send_email", fields: ["send_email", "", "to\nsubject\nbody"] },
  ];
  const index = new RegexIndex(3);
  for (const item of items) index.add(item);

  it("compiles any pattern or refuses it with pattern_too_long / invalid_pattern, and searches with it", () => {
    fc.assert(
      fc.property(pattern, (p) => {
        const compiled = onlyCodedErrors(["invalid_pattern", "pattern_too_long"], () => compilePattern(p));
        if ("error" in compiled) {
          assert.equal(compiled.error.code === "pattern_too_long", p.length > MAX_PATTERN_LENGTH);
          return;
        }
        const first = index.search(p, 5);
        assert.deepEqual(index.search(p, 5), first);
        // The joined multi-item scan must find exactly what matching each item's fields one by one finds.
        const expected = items.filter((item) => item.fields.some((field) => compilePattern(p).test(field))).map((item) => item.id);
        assert.deepEqual(first.map((hit) => hit.id).sort(), expected.sort());
      }),
      fuzzParameters(400),
    );
  });
});
