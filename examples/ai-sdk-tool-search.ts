/**
 * The Vercel AI SDK's toolSearch() with our engines behind it: the catalog registered as deferred AI SDK tools, and a
 * search callback that ranks them with BM25 (any engine works), including `select:name1,name2` queries.
 *
 *   npx tsx examples/ai-sdk-tool-search.ts
 *
 * With AI_GATEWAY_API_KEY set it runs generateText through the AI Gateway (AI_MODEL, default openai/gpt-5.4). Without
 * it nothing is sent: it prints the tools the AI SDK would hand to the model on the first step (only the search tool)
 * and what a search answers, and exits 0.
 */
import { generateText, isStepCount, type LanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { ToolIndex } from "../src/index.js";
import { catalogTools, indexedToolSearch, toolSearchCallback } from "../src/ai-sdk.js";

const catalog = await ToolIndex.fromFile(new URL("./catalog.json", import.meta.url).pathname);
const handlers = { get_forecast: ({ location }: Record<string, unknown>) => ({ location, tomorrow: { rain_probability: 0.8, high_c: 17 } }) };
const tools = { search: indexedToolSearch({ index: catalog }), ...catalogTools(catalog, { handlers }) };
const prompt = "Do I need an umbrella in Lisbon tomorrow?";

if (process.env.AI_GATEWAY_API_KEY) {
  const result = await generateText({ model: process.env.AI_MODEL ?? "openai/gpt-5.4", tools, stopWhen: isStepCount(5), prompt });
  for (const step of result.steps) for (const call of step.toolCalls) console.log(`[${call.toolName}] ${JSON.stringify(call.input)}`);
  console.log(`\nModel: ${result.text}`);
} else {
  // A stand-in model that only records what the AI SDK hands it and stops: nothing leaves the machine.
  const recorder = new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: "text", text: "" }], finishReason: { unified: "stop", raw: "stop" }, warnings: [],
      usage: { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } },
    }),
  });
  await generateText({ model: recorder as LanguageModel, tools, prompt });
  console.log("AI_GATEWAY_API_KEY is not set, so nothing is sent. On the first step the model would be offered:\n");
  console.log(JSON.stringify(recorder.doGenerateCalls[0].tools, null, 2));
  const deferred = catalog.list().map((t) => ({ name: t.name, description: t.description }));
  const search = toolSearchCallback({ index: catalog });
  for (const query of ["rain forecast tomorrow", "select:get_forecast,get_wether"]) {
    console.log(`\nsearch({"query": ${JSON.stringify(query)}}) ranks: ${(await search({ query, tools: deferred })).join(", ")}`);
  }
}
