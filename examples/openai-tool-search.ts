/**
 * OpenAI Responses with native tool search, run by our engines: the catalog goes out deferred (grouped into
 * namespaces by category), the model's tool_search_call is answered with a tool_search_output built from a BM25
 * search, and `tools` stays the same on every turn, so the prompt cache holds.
 *
 *   npx tsx examples/openai-tool-search.ts
 *
 * Without OPENAI_API_KEY it prints the first request (checked against the API's rules) and the tool_search_output
 * it would answer a search with, and exits 0. OPENAI_MODEL picks the model (tool_search needs gpt-5.4 or later).
 */
import OpenAI from "openai";
import { ToolIndex } from "../src/index.js";
import { checkResponsesRequest, responsesToolLayout, runOpenAiAgent, Toolbox, toolSearchOutput, type RunOpenAiAgentOptions } from "../src/openai.js";

const catalog = await ToolIndex.fromFile(new URL("./catalog.json", import.meta.url).pathname);
const options: Omit<RunOpenAiAgentOptions, "client" | "model"> = {
  catalog,
  api: "responses",
  toolSearch: "client",
  groupBy: "category",
  about: "a library of weather, finance and productivity tools",
  prompt: "Do I need an umbrella in Lisbon tomorrow?",
  handlers: { get_forecast: ({ location }) => ({ location, tomorrow: { rain_probability: 0.8, high_c: 17 } }) },
};
const model = process.env.OPENAI_MODEL ?? "gpt-5.4";

if (!process.env.OPENAI_API_KEY) {
  const toolbox = new Toolbox(catalog, options);
  const layout = responsesToolLayout(toolbox, { toolSearch: "client", groupBy: "category" });
  const request = { model, input: [{ role: "user", content: options.prompt }], tools: layout.tools };
  checkResponsesRequest(request);
  console.log("OPENAI_API_KEY is not set, so nothing is sent. The first request would be:\n");
  console.log(JSON.stringify(request, null, 2));
  const result = await toolbox.call({ name: "tool_search", input: { query: "rain forecast tomorrow" } });
  const output = toolSearchOutput("call_example", result.loaded.map((name) => catalog.require(name)), layout);
  console.log(`\nA tool_search_call {"query": "rain forecast tomorrow"} would be answered with:\n`);
  console.log(JSON.stringify(output, null, 2));
} else {
  const run = await runOpenAiAgent({
    ...options, model, client: new OpenAI(),
    onEvent: (event) => {
      if (event.type === "tool_call") console.log(`[${event.name}] ${JSON.stringify(event.input)} → ${event.result.isError ? "error" : "ok"}`);
    },
  });
  console.log(`\nModel: ${run.text}\n\nStats: ${JSON.stringify(run.stats)}`);
}
