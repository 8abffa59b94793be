/**
 * Semantic tool search, cookbook style: one tool_search meta-tool backed by embeddings (the offline default model),
 * answering with tool_reference blocks; every catalog tool is sent with defer_loading, so only what is found enters
 * the context. "Do I need an umbrella" finds the forecast tool without sharing a word with it.
 *
 *   npx tsx examples/semantic-tool-search.ts
 *
 * Without ANTHROPIC_API_KEY it prints the request it would send and exits 0. The first run embeds the catalog and
 * caches the vectors in .toolsearch/.
 */
import { ToolIndex } from "../src/index.js";
import { runOrPrint } from "./lib/run-or-print.js";

const catalog = await ToolIndex.fromFile(new URL("./catalog.json", import.meta.url).pathname);

await runOrPrint({
  catalog,
  engine: "semantic",
  about: "a library of weather, finance and productivity tools",
  prompt: "Do I need an umbrella in Lisbon tomorrow?",
  handlers: {
    get_forecast: ({ location }) => ({ location, tomorrow: { rain_probability: 0.8, high_c: 17, low_c: 12 } }),
    get_weather: ({ location }) => ({ location, temperature_c: 16, conditions: "overcast" }),
  },
  offlineCall: { name: "tool_search", input: { query: "do I need an umbrella tomorrow" } },
});
