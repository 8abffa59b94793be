import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { truncateAtWord } from "../../src/text/truncate.js";
import { closestNames } from "../../src/text/suggest.js";

describe("truncateAtWord", () => {
  it("keeps short text whole and folds white space", () => {
    assert.equal(truncateAtWord("  Get   the\nweather ", 200), "Get the weather");
  });

  it("cuts at a word boundary with an ellipsis, within the limit", () => {
    const text = "Get the current weather conditions for any city in the world with hourly detail";
    const cut = truncateAtWord(text, 30);
    assert.ok(cut.length <= 30, cut);
    assert.ok(cut.endsWith("…"));
    assert.ok(text.startsWith(cut.slice(0, -1)));
    assert.ok(text[cut.length - 1] === " " || text[cut.length - 1] === undefined || /\s/.test(text[cut.length - 1]));
  });

  it("never splits a surrogate pair", () => {
    const text = "x".repeat(8) + "😀".repeat(20);
    const cut = truncateAtWord(text, 15);
    assert.ok(cut.length <= 15);
    assert.doesNotMatch(cut, /[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});

describe("closestNames", () => {
  it("finds names within a few edits or containing the word, closest first", () => {
    const names = ["get_weather", "get_forecast", "set_weather_alert", "send_email"];
    assert.deepEqual(closestNames("get_wether", names), ["get_weather"]);
    assert.deepEqual(closestNames("weather", names, 2), ["get_weather", "set_weather_alert"]);
    assert.deepEqual(closestNames("zzzzzz", names), []);
  });
});
