import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compilePattern, fromPythonSyntax, RegexIndex } from "../../src/engines/regex.js";
import { ToolsearchError } from "../../src/errors.js";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof ToolsearchError ? `${error.code}: ${error.message}` : String(error);
  }
  return undefined;
}

describe("regex engine", () => {
  const index = new RegexIndex(3);
  index.add({ id: "get_customer_profile", fields: ["get_customer_profile", "Read a profile", "customer_id"] });
  index.add({ id: "update_segment", fields: ["update_segment", "Change the Customer segment", "segment"] });
  index.add({ id: "order_lookup", fields: ["order_lookup", "Find orders", "customer reference"] });
  index.add({ id: "unrelated", fields: ["unrelated", "Nothing here", ""] });

  it("ranks name matches before description before parameters, ties by id", () => {
    const hits = index.search("customer", 10);
    assert.deepEqual(hits.map((h) => [h.id, h.score]), [["get_customer_profile", 3], ["update_segment", 2], ["order_lookup", 1]]);
  });

  it("is case-insensitive and takes Python inline flags", () => {
    assert.deepEqual(index.search("(?i)CUSTOMER", 10).length, 3);
    assert.equal(fromPythonSyntax("end\\Z"), "end\\z");
    assert.deepEqual(index.search("profile\\Z", 10).map((h) => h.id), ["get_customer_profile"]);
  });

  it("refuses patterns over 200 characters with pattern_too_long", () => {
    assert.match(codeOf(() => compilePattern("a".repeat(201)))!, /^pattern_too_long/);
    assert.equal(codeOf(() => compilePattern("a".repeat(200))), undefined);
  });

  it("explains what RE2 refuses with invalid_pattern", () => {
    assert.match(codeOf(() => compilePattern("(?<=get_)customer"))!, /^invalid_pattern: .*look-behind/);
    assert.match(codeOf(() => compilePattern("cust(?!omer)"))!, /^invalid_pattern: .*look-ahead/);
    assert.match(codeOf(() => compilePattern("(a)\\1"))!, /^invalid_pattern: .*back-references/);
    assert.match(codeOf(() => compilePattern("(?P<x>a)(?P=x)"))!, /^invalid_pattern: .*back-references/);
    assert.match(codeOf(() => compilePattern("[unclosed"))!, /^invalid_pattern: .*missing \]/);
    assert.match(codeOf(() => compilePattern("   "))!, /^invalid_pattern: .*empty/);
  });

  it("finds exactly what a per-item re.search finds, whatever the pattern spans", () => {
    const texts = [
      ["get_weather", "Current weather\nfor a city", "city unit"], ["weather_alerts", "Storm warnings", ""],
      ["ping", "", "host"], ["lấy_thông_tin", "Khách hàng 😀 đơn", "mã"], ["z", "ends with city", "a\nb"],
    ];
    const engine = new RegexIndex(3);
    texts.forEach((fields, i) => engine.add({ id: `i${i}`, fields }));
    const patterns = ["city", "^city", "city$", "^for", "\\bwea", "y\\s+u", "[^x]+", "a\\nb", "^b$", "\\Aping\\Z", "khách|host", "đơn$", "^$", "x*"];
    for (const pattern of patterns) {
      const re = compilePattern(pattern);
      const expected = texts
        .map((fields, i) => ({ id: `i${i}`, at: fields.findIndex((t) => t !== "" && re.test(t)) }))
        .filter((h) => h.at >= 0)
        .map((h) => ({ id: h.id, score: 3 - h.at }))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
      assert.deepEqual(engine.search(pattern, 10), expected, pattern);
    }
  });

  it("runs a catastrophic-backtracking pattern over many items in linear time", () => {
    const big = new RegexIndex(3);
    for (let i = 0; i < 12_000; i++) big.add({ id: `t${i}`, fields: [`t${i}`, `${"a".repeat(40)}!`, ""] });
    // A backtracking engine would take astronomically long here; RE2 answers at once.
    assert.deepEqual(big.search("(a+)+$", 5), []);
    assert.equal(big.search("(a+)+!", 5).length, 5);
  });
});
