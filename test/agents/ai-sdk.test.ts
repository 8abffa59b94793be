/** toolsearch/ai-sdk with the real `ai` package: generateText driven by the AI SDK's own mock language model (no network). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateText, isStepCount, tool, jsonSchema } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { catalogTools, indexedToolSearch, toolSearchCallback } from "../../src/ai-sdk.js";
import { EmbeddingCache } from "../../src/embeddings/cache.js";
import { Embedder } from "../../src/embeddings/embedder.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { CountingProvider, FIXTURE_TOOLS } from "../embeddings/helpers.js";

const CATALOG = new URL("../fixtures/catalogs/enterprise.json", import.meta.url).pathname;
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };

type Step = { toolCall?: { name: string; input: unknown }; text?: string };

/** A mock model answering each step with a tool call or a text, and recording which tools it was offered. */
function scriptedModel(steps: Step[]) {
  let i = 0;
  const offered: string[][] = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      offered.push((options.tools ?? []).map((t) => t.name));
      const step = steps[i++];
      if (!step) throw new Error(`no scripted step ${i}`);
      if (step.toolCall) {
        return {
          content: [{ type: "tool-call", toolCallId: `call_${i}`, toolName: step.toolCall.name, input: JSON.stringify(step.toolCall.input) }],
          finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [],
        };
      }
      return { content: [{ type: "text", text: step.text ?? "" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
    },
  });
  return { model, offered };
}

describe("toolsearch/ai-sdk with generateText (direct tool calling)", () => {
  it("ranks the catalog with our engine, then the found tool is offered and runs validated", async () => {
    const catalog = await ToolIndex.fromFile(CATALOG);
    const seen: unknown[] = [];
    const { model, offered } = scriptedModel([
      { toolCall: { name: "search", input: { query: "how many units are left in the warehouse" } } },
      { toolCall: { name: "get_stock_level", input: { sku: "SP-001" } } },
      { text: "234 left." },
    ]);
    const result = await generateText({
      model,
      tools: { search: indexedToolSearch({ index: catalog, maxResults: 2 }), ...catalogTools(catalog, { handlers: { get_stock_level: (input) => { seen.push(input); return { available: 234 }; } } }) },
      stopWhen: isStepCount(5),
      prompt: "Stock of SP-001?",
    });
    assert.equal(result.text, "234 left.");
    assert.deepEqual(offered[0], ["search"], "deferred tools are not offered before a search");
    const searchResult = result.steps[0].toolResults[0] as unknown as { output: { tools: { name: string }[] } };
    assert.equal(searchResult.output.tools[0].name, "get_stock_level");
    assert.ok(searchResult.output.tools.length <= 2);
    assert.ok(offered[1].includes("get_stock_level"));
    assert.ok(!offered[1].includes("process_refund"), "only found tools are offered");
    assert.deepEqual(seen, [{ sku: "SP-001" }]);
  });

  it("select:a,b loads exactly the named tools; an unknown name brings its close names", async () => {
    const catalog = await ToolIndex.fromFile(CATALOG);
    const { model, offered } = scriptedModel([
      { toolCall: { name: "search", input: { query: "select:process_refund,get_employe_info" } } },
      { text: "ok" },
    ]);
    await generateText({ model, tools: { search: indexedToolSearch({ index: catalog }), ...catalogTools(catalog) }, stopWhen: isStepCount(3), prompt: "x" });
    assert.deepEqual(offered[1].filter((n) => n !== "search").sort(), ["get_employee_info", "process_refund"]);
  });

  it("turns a bad input and a missing handler into tool errors the model reads", async () => {
    const catalog = await ToolIndex.fromFile(CATALOG);
    const { model } = scriptedModel([
      { toolCall: { name: "get_stock_level", input: { warehouse: "W1" } } },
      { toolCall: { name: "get_sales_report", input: { start_date: "2024-01-01", end_date: "2024-01-31" } } },
      { text: "sorry" },
    ]);
    const result = await generateText({
      model, tools: catalogTools(catalog, { alwaysLoad: ["get_stock_level", "get_sales_report"], handlers: { get_stock_level: () => 1 } }), stopWhen: isStepCount(4), prompt: "x",
    });
    const errors = result.steps.flatMap((s) => s.content).filter((p) => p.type === "tool-error") as unknown as { error: Error }[];
    assert.equal(errors.length, 2);
    assert.match(String(errors[0].error), /missing required property "sku"/);
    assert.match(String(errors[1].error), /no handler registered/);
  });
});

describe("toolSearchCallback", () => {
  it("builds its index from the generation's deferred tools when none is given, and keeps to them", async () => {
    const search = toolSearchCallback();
    const tools = [
      { name: "getForecast", description: "Weather forecast for a city, days ahead." },
      { name: "convertCurrency", description: "Convert an amount between currencies." },
    ];
    assert.deepEqual(await search({ query: "weather forecast tomorrow", tools }), ["getForecast"]);
    const catalog = await ToolIndex.fromFile(CATALOG);
    const restricted = toolSearchCallback({ index: catalog });
    const names = await restricted({ query: "customer profile", tools: [{ name: "get_employee_info" }, { name: "get_customer_profile" }] });
    assert.equal(names[0], "get_customer_profile");
    assert.ok(names.every((n) => n === "get_customer_profile" || n === "get_employee_info"));
  });

  it("ranks by meaning with the semantic engine (the offline embedding model)", async () => {
    const index = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(new CountingProvider(), { cache: new EmbeddingCache({ path: ":memory:" }) }) });
    const search = toolSearchCallback({ index, engine: "semantic" });
    const deferred = index.list().map((t) => ({ name: t.name, description: t.description }));
    assert.equal((await search({ query: "will it rain tomorrow", tools: deferred }))[0], "get_weather_forecast");
  });

  it("plays with tools the application defines itself", async () => {
    const { model, offered } = scriptedModel([{ toolCall: { name: "find", input: { query: "forecast" } } }, { text: "ok" }]);
    const forecast = tool({ description: "Weather forecast for a city.", inputSchema: jsonSchema({ type: "object", properties: { city: { type: "string" } } }), deferLoading: true, execute: async () => "rain" });
    await generateText({ model, tools: { find: indexedToolSearch({ engine: "regex" }), forecast }, stopWhen: isStepCount(3), prompt: "x" });
    assert.deepEqual(offered[1].sort(), ["find", "forecast"]);
  });
});
