/**
 * The OpenAI Agents SDK with a client-executed toolSearchTool whose executor is our index: the catalog goes out as
 * deferred function tools grouped into namespaces by category, and the SDK's runner answers the model's
 * tool_search_call with what our engine finds.
 *
 *   npx tsx examples/openai-agents-tool-search.ts
 *
 * With OPENAI_API_KEY set it runs the agent (OPENAI_MODEL, default gpt-5.4). Without it nothing is sent: it prints the
 * agent's tools and the tools a search would load, and exits 0.
 */
import { Agent, run, setTracingDisabled } from "@openai/agents";
import { ToolIndex } from "../src/index.js";
import { catalogAgentTools, groupTools, indexedToolSearchTool, toolSearchExecutor } from "../src/openai-agents.js";

const catalog = await ToolIndex.fromFile(new URL("./catalog.json", import.meta.url).pathname);
const handlers = { get_forecast: ({ location }: Record<string, unknown>) => ({ location, tomorrow: { rain_probability: 0.8, high_c: 17 } }) };
const tools = catalogAgentTools(catalog, { groupBy: "category", handlers });
const agent = new Agent({
  name: "Assistant", model: process.env.OPENAI_MODEL ?? "gpt-5.4", instructions: "Be brief.",
  tools: [indexedToolSearchTool({ index: catalog, about: "a library of weather, finance and productivity tools" }), ...tools],
});

if (process.env.OPENAI_API_KEY) {
  const result = await run(agent, "Do I need an umbrella in Lisbon tomorrow?");
  console.log(result.finalOutput);
} else {
  setTracingDisabled(true);
  console.log("OPENAI_API_KEY is not set, so nothing is sent. The agent's tools:\n");
  const namespaceOf = new Map(groupTools(catalog.list(), { groupBy: "category" }).groups.flatMap((g) => g.tools.map((t) => [t.name, g.name] as const)));
  for (const tool of agent.tools) {
    const t = tool as { type: string; name: string; deferLoading?: boolean };
    const namespace = namespaceOf.get(t.name);
    console.log(`  ${t.type.padEnd(12)} ${namespace ? `${namespace}.` : ""}${t.name}${t.deferLoading ? "  (deferred)" : ""}`);
  }
  const execute = toolSearchExecutor({ index: catalog });
  const found = await execute({ availableTools: agent.tools, toolCall: { type: "tool_search_call", arguments: { query: "rain forecast tomorrow" } } } as never);
  console.log(`\nA tool_search_call {"query": "rain forecast tomorrow"} would load: ${(found as { name: string }[]).map((t) => t.name).join(", ")}`);
}
