/**
 * toolsearch/openai-agents with the real OpenAI Agents SDK: its Runner, its Responses model and its client tool_search
 * machinery, against our loopback server speaking the Responses wire format (no network, tracing off).
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { Agent, OpenAIProvider, Runner, setTracingDisabled } from "@openai/agents";
import { catalogAgentTools, indexedToolSearchTool, toolSearchExecutor } from "../../src/openai-agents.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { ENTERPRISE_CATALOG, fakeApis, functionCall, namespacedFunctionCall, outputMessage, response, toolSearchCall, type Turn } from "./fake-api.js";

const CATALOG = ENTERPRISE_CATALOG;
const start = fakeApis();
before(() => setTracingDisabled(true));

async function setup(turns: Turn[]) {
  const api = await start(turns);
  const runner = new Runner({ modelProvider: new OpenAIProvider({ apiKey: "test-key", baseURL: `${api.url}/v1`, useResponses: true }), tracingDisabled: true });
  return { api, runner, catalog: await ToolIndex.fromFile(CATALOG) };
}

type Item = Record<string, unknown>;

describe("toolsearch/openai-agents with the Agents SDK Runner", () => {
  it("the SDK sends our client tool_search and deferred tools, runs our executor, and calls the found tool", async () => {
    const seen: unknown[] = [];
    const { api, runner, catalog } = await setup([
      () => response([toolSearchCall({ query: "refund an order" }, "s1")]),
      () => response([functionCall("process_refund", { order_id: "O-1", reason: "defective" }, "f1")]),
      () => response([outputMessage("Refund approved.")]),
    ]);
    const agent = new Agent({
      name: "Support", model: "gpt-test", instructions: "Be brief.",
      tools: [indexedToolSearchTool({ index: catalog }), ...catalogAgentTools(catalog, { handlers: { process_refund: (input) => { seen.push(input); return { refund_id: "R1" }; } } })],
    });
    const result = await runner.run(agent, "Refund O-1, it arrived broken");
    assert.equal(result.finalOutput, "Refund approved.");
    const tools = api.requests[0].tools as Item[];
    assert.equal(tools[0].type, "tool_search");
    assert.equal(tools[0].execution, "client");
    assert.deepEqual((tools[0].parameters as { required: string[] }).required, ["query"]);
    assert.ok(tools.slice(1).every((t) => t.type === "function" && t.defer_loading === true));
    const input = api.requests[1].input as Item[];
    const output = input.find((i) => i.type === "tool_search_output")!;
    assert.equal(output.call_id, "s1");
    assert.equal(output.execution, "client");
    const loaded = (output.tools as Item[]).map((t) => t.name);
    assert.equal(loaded[0], "process_refund");
    assert.ok(loaded.length <= 5);
    assert.deepEqual(seen, [{ order_id: "O-1", reason: "defective" }]);
  });

  it("groups deferred tools into namespaces and answers select: with exactly those tools", async () => {
    const { api, runner, catalog } = await setup([
      () => response([toolSearchCall({ query: "select:get_stock_level" }, "s1")]),
      () => response([namespacedFunctionCall("inventory", "get_stock_level", { sku: "A" }, "f1")]),
      () => response([outputMessage("3 left")]),
    ]);
    const agent = new Agent({
      name: "Ops", model: "gpt-test",
      tools: [indexedToolSearchTool({ index: catalog }), ...catalogAgentTools(catalog, { groupBy: "category", handlers: { get_stock_level: () => ({ available: 3 }) } })],
    });
    const result = await runner.run(agent, "stock of A");
    assert.equal(result.finalOutput, "3 left");
    const namespaces = (api.requests[0].tools as Item[]).filter((t) => t.type === "namespace");
    assert.ok(namespaces.some((n) => n.name === "inventory"));
    const output = (api.requests[1].input as Item[]).find((i) => i.type === "tool_search_output")!;
    const [inventory] = output.tools as Item[];
    assert.equal(inventory.type, "namespace");
    assert.deepEqual((inventory.tools as Item[]).map((t) => t.name), ["get_stock_level"]);
    const callOutput = (api.requests[2].input as Item[]).find((i) => i.type === "function_call_output")!;
    assert.equal(callOutput.output, JSON.stringify({ available: 3 }));
  });

  it("the executor ranks within the agent's deferred tools, building its own index when given none", async () => {
    const catalog = await ToolIndex.fromFile(CATALOG);
    const tools = catalogAgentTools(catalog, { alwaysLoad: ["get_stock_level"] });
    assert.equal(tools.find((t) => t.name === "get_stock_level")!.deferLoading, false);
    const execute = toolSearchExecutor();
    const found = await execute({ availableTools: tools, toolCall: { type: "tool_search_call", arguments: { query: "stock level reorder" } } } as never);
    const names = (found as { name: string }[]).map((t) => t.name);
    assert.equal(names[0], "trigger_reorder");
    assert.ok(!names.includes("get_stock_level"), "tools already loaded are not searched");
    assert.deepEqual(await execute({ availableTools: tools, toolCall: { type: "tool_search_call", arguments: { limit: 3 } } } as never), []);
    const selected = await execute({ availableTools: tools, toolCall: { type: "tool_search_call", arguments: JSON.stringify({ query: "select:process_refund,get_employe_info" }) } } as never);
    assert.deepEqual((selected as { name: string }[]).map((t) => t.name), ["process_refund", "get_employee_info"]);
  });

  it("a bad input comes back to the model as an error text, nothing runs", async () => {
    const catalog = await ToolIndex.fromFile(CATALOG);
    const ran: unknown[] = [];
    const [stock] = catalogAgentTools(catalog, { alwaysLoad: ["get_stock_level"], handlers: { get_stock_level: (i) => ran.push(i) } });
    const text = await stock.invoke({} as never, JSON.stringify({ warehouse: 1 }));
    assert.match(String(text), /^Error: Invalid input for get_stock_level:\n- missing required property "sku"/);
    assert.deepEqual(ran, []);
  });
});
