import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeTools } from "../../src/catalog/load.js";
import { MAX_EMBEDDED_CHARS, MAX_TOOL_SENTENCES, toolSentenceTexts } from "../../src/embeddings/texts.js";

const tool = (description?: string) => normalizeTools([{ name: "t", ...(description === undefined ? {} : { description }), input_schema: { type: "object", properties: {} } }])[0];

describe("toolSentenceTexts", () => {
  it("splits a description into its sentences, first ones first", () => {
    assert.deepEqual(toolSentenceTexts(tool("Stay connected to global events with up-to-date news. Search articles by keyword, e.g. a company name. Results are paged.")), [
      "Stay connected to global events with up-to-date news.",
      "Search articles by keyword, e.g. a company name.",
      "Results are paged.",
    ]);
  });

  it("drops fragments of fewer than three words, and keeps at most the first four sentences", () => {
    assert.deepEqual(toolSentenceTexts(tool("Beta. Get the weather of a city. See docs! Forecast for the next days.")), ["Get the weather of a city.", "Forecast for the next days."]);
    const long = Array.from({ length: 7 }, (_, i) => `This is sentence number ${i}.`).join(" ");
    assert.deepEqual(toolSentenceTexts(tool(long)), Array.from({ length: MAX_TOOL_SENTENCES }, (_, i) => `This is sentence number ${i}.`));
  });

  it("gives nothing for a tool without a description or with only fragments, and clips a long sentence", () => {
    assert.deepEqual(toolSentenceTexts(tool()), []);
    assert.deepEqual(toolSentenceTexts(tool("Weather API.")), []);
    const [clipped] = toolSentenceTexts(tool(`Returns ${"very ".repeat(400)}long answers.`));
    assert.equal(clipped.length, MAX_EMBEDDED_CHARS);
  });
});
