/** The OpenAI adapter driven through the official SDK (Chat Completions and Responses) against a loopback server. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runOpenAiAgent } from "../../src/agents/openai.js";
import { openAiSetup } from "./openai-fixture.js";
import { chatCompletion, chatToolCall, functionCall, outputMessage, response } from "./fake-api.js";

const setup = openAiSetup();

type Block = Record<string, unknown>;

describe("runOpenAiAgent, Chat Completions", () => {
  it("searches, adds the found tools to the next request, validates and runs calls in parallel", async () => {
    const seen: unknown[] = [];
    const { api, client, catalog } = await setup([
      () => chatCompletion({ tool_calls: [chatToolCall("tool_search", { query: "stock level", limit: "2" }, "c1")] }, "tool_calls"),
      () => chatCompletion({ tool_calls: [chatToolCall("get_stock_level", { warehouse_id: "W1" }, "c2"), chatToolCall("get_stock_level", "{not json", "c3")] }, "tool_calls"),
      () => chatCompletion({ tool_calls: [chatToolCall("get_stock_level", { sku: "SP-001" }, "c4"), chatToolCall("tool_search", { query: "sales report" }, "c5")] }, "tool_calls"),
      () => chatCompletion({ content: "234 available." }, "stop"),
    ]);
    const run = await runOpenAiAgent({
      client, catalog, model: "gpt-test", system: "Be brief.", prompt: "Stock of SP-001?",
      handlers: { get_stock_level: (input) => { seen.push(input); return { available: 234 }; } },
    });
    assert.equal(run.text, "234 available.");
    assert.equal(run.stopReason, "stop");
    assert.deepEqual(api.paths, ["/v1/chat/completions", "/v1/chat/completions", "/v1/chat/completions", "/v1/chat/completions"]);
    const names = (i: number) => (api.requests[i].tools as { function: { name: string } }[]).map((t) => t.function.name);
    assert.deepEqual(names(0), ["tool_search"]);
    assert.deepEqual(names(1).slice(0, 2), ["tool_search", "get_stock_level"]);
    // Tools found later are appended: what was sent before stays in place.
    assert.deepEqual(names(3).slice(0, names(1).length), names(1));
    assert.ok(names(3).includes("get_sales_report"));

    const messages = (i: number) => api.requests[i].messages as Block[];
    assert.deepEqual(messages(0)[0], { role: "system", content: "Be brief." });
    const searchAnswer = JSON.parse(String(messages(1).at(-1)!.content));
    assert.equal(searchAnswer.tools[0].name, "get_stock_level");
    assert.ok(searchAnswer.tools[0].description.length <= 200);
    assert.ok(searchAnswer.tools.length <= 2, "limit \"2\" was coerced to 2");
    const turn2 = messages(2).slice(-2);
    assert.deepEqual(turn2.map((m) => m.tool_call_id), ["c2", "c3"]);
    assert.match(String(turn2[0].content), /^Error: Invalid input for get_stock_level:\n- missing required property "sku"/);
    assert.match(String(turn2[1].content), /not valid JSON/);
    assert.deepEqual(seen, [{ sku: "SP-001" }]);
    assert.equal(run.stats.searches, 2);
    assert.equal(run.stats.toolCalls, 2);
    assert.equal(run.stats.validationErrors, 2);
    assert.equal(run.stats.inputTokens, 320);
    assert.equal(run.stats.outputTokens, 40);
  });

  it("supports directory mode: the directory goes into the system message, describe_tool loads the tool", async () => {
    const { api, client, catalog } = await setup([
      () => chatCompletion({ tool_calls: [chatToolCall("describe_tool", { tool_name: "get_service_health" })] }, "tool_calls"),
      () => chatCompletion({ content: "ok" }, "stop"),
    ]);
    const run = await runOpenAiAgent({ client, catalog, model: "gpt-test", mode: "directory", prompt: "Is the api healthy?" });
    const system = String((api.requests[0].messages as Block[])[0].content);
    assert.match(system, /TOOL DIRECTORY \(8 tools\)/);
    const tools = (api.requests[1].tools as { function: { name: string; parameters: unknown } }[]);
    assert.deepEqual(tools.map((t) => t.function.name), ["describe_tool", "get_service_health"]);
    assert.deepEqual(tools[1].function.parameters, catalog.describe("get_service_health")!.input_schema);
    assert.deepEqual(run.stats.loadedTools, ["get_service_health"]);
  });
});

describe("runOpenAiAgent, Responses", () => {
  it("runs search → call → answer with function_call_output items", async () => {
    const { api, client, catalog } = await setup([
      () => response([functionCall("tool_search", { query: "refund order" }, "r1")]),
      () => response([functionCall("process_refund", { order_id: "O-1", reason: "defective" }, "r2")]),
      () => response([outputMessage("Refund REF-1 approved.")]),
    ]);
    const run = await runOpenAiAgent({
      client, catalog, api: "responses", model: "gpt-test", system: "Be brief.", prompt: "Refund O-1, broken on arrival",
      handlers: { process_refund: () => ({ refund_id: "REF-1" }) },
    });
    assert.equal(run.text, "Refund REF-1 approved.");
    assert.deepEqual(api.paths, ["/v1/responses", "/v1/responses", "/v1/responses"]);
    const first = api.requests[0];
    assert.equal(first.instructions, "Be brief.");
    assert.deepEqual((first.tools as Block[]).map((t) => [t.type, t.name, t.strict]), [["function", "tool_search", false]]);
    assert.ok((api.requests[1].tools as Block[]).some((t) => t.name === "process_refund"));
    const items = api.requests[2].input as Block[];
    const outputs = items.filter((i) => i.type === "function_call_output");
    assert.deepEqual(outputs.map((o) => o.call_id), ["r1", "r2"]);
    assert.equal(outputs[1].output, JSON.stringify({ refund_id: "REF-1" }));
    assert.equal(run.stats.searches, 1);
    assert.equal(run.stats.toolCalls, 1);
    assert.equal(run.stats.inputTokens, 270);
  });

  it("refuses server mode, which only Anthropic has", async () => {
    const { client, catalog } = await setup([]);
    await assert.rejects(runOpenAiAgent({ client, catalog, model: "m", prompt: "x", mode: "server" }), { code: "invalid_option" });
  });
});
