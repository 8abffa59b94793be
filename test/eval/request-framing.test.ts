import assert from "node:assert/strict";
import { test } from "node:test";
import { stripFraming } from "../../scripts/request-framing.js";

test("connectives, politeness and a modal opening come off, stacked, with the closing punctuation", () => {
  assert.equal(stripFraming("Also, could you please tell me the latest news about Tesla?"), "the latest news about Tesla");
  assert.equal(stripFraming("And then can you convert it into a PDF file?"), "convert it into a PDF file");
  assert.equal(stripFraming("Please provide me with the current stock price of Apple."), "the current stock price of Apple");
  assert.equal(stripFraming("In addition, I would like to know the weather in Lyon, please."), "the weather in Lyon");
});

test("the connectives level keeps the request's own form", () => {
  assert.equal(stripFraming("Also, could you tell me the weather in Lyon?", "connectives"), "tell me the weather in Lyon");
  assert.equal(stripFraming("I want to learn about the stock market", "connectives"), "I want to learn about the stock market");
  assert.equal(stripFraming("I want to learn about the stock market"), "learn about the stock market");
  assert.equal(stripFraming("I'm looking for a research paper on renewable energy"), "a research paper on renewable energy");
  assert.equal(stripFraming("Can you help me find a hotel in Rome?"), "find a hotel in Rome");
});

test("words that name what is asked stay, and interjections need their comma", () => {
  assert.equal(stripFraming("Next week's weather in Paris"), "Next week's weather in Paris");
  assert.equal(stripFraming("Now, what is the weather in Paris?"), "what is the weather in Paris");
  assert.equal(stripFraming("Plus size clothing stores near me"), "Plus size clothing stores near me");
  assert.equal(stripFraming("Android apps for learning Spanish"), "Android apps for learning Spanish");
  assert.equal(stripFraming("weather in paris"), "weather in paris");
});

test("a sentence that is all framing is kept whole", () => {
  assert.equal(stripFraming("Also, please?"), "Also, please?");
  assert.equal(stripFraming("Thanks!"), "Thanks!");
  assert.equal(stripFraming("  "), "");
});
