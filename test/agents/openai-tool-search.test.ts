/** OpenAI Responses' native tool_search (client and server execution), driven through the official SDK against a loopback server. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runOpenAiAgent } from "../../src/agents/openai.js";
import { checkResponsesRequest } from "../../src/agents/openai-tool-search.js";
import { openAiSetup } from "./openai-fixture.js";
import {
  functionCall, namespacedFunctionCall, outputMessage, response, serverToolSearchOutput, toolSearchCall,
} from "./fake-api.js";

const setup = openAiSetup();

type Item = Record<string, unknown>;

describe("runOpenAiAgent, Responses with toolSearch: client", () => {
  it("defers the catalog, answers tool_search_call with tool_search_output, and never changes tools", async () => {
    const { api, client, catalog } = await setup([
      () => response([toolSearchCall({ query: "refund order" }, "s1")]),
      () => response([functionCall("process_refund", { order_id: "O-1", reason: "defective" }, "f1")]),
      () => response([outputMessage("Refund REF-1 approved.")]),
    ]);
    const run = await runOpenAiAgent({
      client, catalog, api: "responses", toolSearch: "client", model: "gpt-test", prompt: "Refund O-1, broken on arrival",
      alwaysLoad: ["get_service_health"], handlers: { process_refund: () => ({ refund_id: "REF-1" }) },
    });
    assert.equal(run.text, "Refund REF-1 approved.");
    const tools = api.requests[0].tools as Item[];
    assert.deepEqual(tools[0].type, "tool_search");
    assert.equal(tools[0].execution, "client");
    assert.match(String(tools[0].description), /Find tools in the tool catalog/);
    assert.deepEqual((tools[0].parameters as { required: string[] }).required, ["query"]);
    assert.deepEqual([tools[1].name, tools[1].defer_loading], ["get_service_health", undefined]);
    assert.equal(tools.length, 1 + 8);
    assert.ok(tools.slice(2).every((t) => t.type === "function" && t.defer_loading === true && t.strict === false));
    // The prefix holds: tools are the same bytes on every request.
    const toolBytes = api.raw.map((raw) => JSON.stringify(JSON.parse(raw).tools));
    assert.equal(new Set(toolBytes).size, 1);

    const second = api.requests[1].input as Item[];
    const output = second.find((i) => i.type === "tool_search_output")!;
    assert.equal(output.call_id, "s1");
    assert.equal(output.execution, "client");
    const loaded = output.tools as Item[];
    assert.equal(loaded[0].name, "process_refund");
    assert.deepEqual(loaded[0].parameters, catalog.describe("process_refund")!.input_schema);
    assert.ok(loaded.length <= 5);
    assert.ok(second.findIndex((i) => i.type === "tool_search_call") < second.indexOf(output));
    assert.equal(run.stats.searches, 1);
    assert.ok(run.stats.loadedTools.includes("process_refund"));
    assert.equal(run.stats.toolCalls, 1);
  });

  it("loads exactly the tools of a select: query, and tells the model about unknown names", async () => {
    const { api, client, catalog } = await setup([
      () => response([toolSearchCall({ query: "select:get_stock_level,trigger_reordr" }, "s1")]),
      () => response([outputMessage("done")]),
    ]);
    await runOpenAiAgent({ client, catalog, api: "responses", toolSearch: "client", model: "gpt-test", prompt: "x" });
    const input = api.requests[1].input as Item[];
    const output = input.find((i) => i.type === "tool_search_output")!;
    assert.deepEqual((output.tools as Item[]).map((t) => t.name), ["get_stock_level"]);
    const note = input.at(-1)!;
    assert.equal(note.role, "developer");
    assert.match(String(note.content), /No tool is named "trigger_reordr"; close names: trigger_reorder/);
  });

  it("groups deferred functions into namespaces by category and answers with the namespace", async () => {
    const { api, client, catalog } = await setup([
      () => response([toolSearchCall({ query: "stock level" }, "s1")]),
      () => response([namespacedFunctionCall("inventory", "get_stock_level", { sku: "SP-1" }, "f1")]),
      () => response([outputMessage("12 left")]),
    ]);
    const seen: unknown[] = [];
    const run = await runOpenAiAgent({
      client, catalog, api: "responses", toolSearch: "client", groupBy: "category", model: "gpt-test", prompt: "stock of SP-1",
      namespaceDescriptions: { Inventory: "Warehouse stock and reordering." },
      handlers: { get_stock_level: (input) => { seen.push(input); return { available: 12 }; } },
    });
    const tools = api.requests[0].tools as Item[];
    const namespaces = tools.filter((t) => t.type === "namespace");
    assert.deepEqual(namespaces.map((n) => n.name), ["crm", "inventory", "analytics", "finance", "hr", "devops"]);
    const inventory = namespaces[1];
    assert.equal(inventory.description, "Warehouse stock and reordering.");
    assert.equal(inventory.defer_loading, undefined);
    assert.ok((inventory.tools as Item[]).every((f) => f.defer_loading === true));
    assert.match(String(namespaces[0].description), /^CRM tools: get_customer_profile, update_customer_segment\.$/);
    const output = (api.requests[1].input as Item[]).find((i) => i.type === "tool_search_output")!;
    const first = (output.tools as Item[])[0];
    assert.equal(first.type, "namespace");
    assert.equal(first.name, "inventory");
    assert.equal(((first.tools as Item[])[0]).name, "get_stock_level");
    assert.deepEqual(seen, [{ sku: "SP-1" }]);
    assert.equal(run.text, "12 left");
  });

  it("refuses native search on Chat Completions and in directory mode", async () => {
    const { client, catalog } = await setup([]);
    await assert.rejects(runOpenAiAgent({ client, catalog, model: "m", prompt: "x", toolSearch: "client" }), { code: "invalid_option", message: /api: "responses"/ });
    await assert.rejects(runOpenAiAgent({ client, catalog, model: "m", prompt: "x", api: "responses", toolSearch: "server", mode: "directory" }), { code: "invalid_option" });
    await assert.rejects(runOpenAiAgent({ client, catalog, model: "m", prompt: "x", api: "responses", toolSearch: "native" as never }), { code: "invalid_option" });
  });
});

describe("runOpenAiAgent, Responses with toolSearch: server", () => {
  it("sends OpenAI's hosted tool_search, passes its items back and counts what it loaded", async () => {
    const loadedTool = { type: "function", name: "get_stock_level", description: "Stock.", parameters: { type: "object" }, defer_loading: true };
    const { api, client, catalog } = await setup([
      () => response([toolSearchCall({ query: "stock" }, null, "server"), serverToolSearchOutput([loadedTool]), functionCall("get_stock_level", { sku: "A" }, "f1")]),
      () => response([outputMessage("5 left")]),
    ]);
    const run = await runOpenAiAgent({
      client, catalog, api: "responses", toolSearch: "server", model: "gpt-test", prompt: "stock of A",
      handlers: { get_stock_level: () => ({ available: 5 }) },
    });
    const tools = api.requests[0].tools as Item[];
    assert.deepEqual(tools[0], { type: "tool_search", execution: "server" });
    assert.ok(!tools.some((t) => t.name === "tool_search"), "no tool_search function of ours");
    assert.ok(tools.slice(1).every((t) => t.defer_loading === true));
    const input = api.requests[1].input as Item[];
    assert.deepEqual(input.slice(1, 3).map((i) => i.type), ["tool_search_call", "tool_search_output"]);
    assert.equal(run.stats.searches, 1);
    assert.deepEqual(run.stats.loadedTools, ["get_stock_level"]);
    assert.equal(run.text, "5 left");
  });
});

describe("checkResponsesRequest", () => {
  it("lists every broken rule of deferred loading", () => {
    assert.throws(
      () => checkResponsesRequest({
        tools: [
          { type: "function", name: "a", parameters: {}, defer_loading: true },
          { type: "function", name: "a", parameters: {} },
          { type: "namespace", name: "crm", description: "", tools: [], defer_loading: true },
          { type: "function", name: "bad name", parameters: {} },
        ],
        input: [{ type: "tool_search_output", call_id: "nope", execution: "client", tools: [] }, { type: "function_call_output", call_id: "x", output: "" }],
      }),
      (error: Error & { code: string; details: { problems: string[] } }) => {
        assert.equal(error.code, "request_invalid");
        const text = error.details.problems.join("\n");
        assert.match(text, /"a" is used twice/);
        assert.match(text, /namespace needs a description/);
        assert.match(text, /defer_loading goes on the namespace's functions/);
        assert.match(text, /needs at least one function/);
        assert.match(text, /"bad name" must match/);
        assert.match(text, /deferred \(defer_loading\) but tools has no tool_search/);
        assert.match(text, /tool_search_output answers call_id "nope"/);
        assert.match(text, /function_call_output answers call_id "x"/);
        return true;
      },
    );
    assert.throws(() => checkResponsesRequest({ tools: [{ type: "tool_search", execution: "client" }, { type: "tool_search" }] }), /client execution needs a description[\s\S]*2 tool_search tools/);
    // A call answered in order passes, and so does a null call_id, which the API's types allow.
    checkResponsesRequest({
      tools: [{ type: "tool_search", execution: "server" }, { type: "function", name: "a", parameters: {}, defer_loading: true }],
      input: [
        { type: "tool_search_call", call_id: "s1", execution: "client", arguments: {} },
        { type: "tool_search_output", call_id: "s1", execution: "client", tools: [] },
        { type: "tool_search_output", call_id: null, execution: "client", tools: [] },
      ],
    });
  });
});
