/** The Anthropic adapter driven through the official SDK against a loopback server (see fake-api.ts). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { buildAnthropicRequest, checkAnthropicRequest, runAgent } from "../../src/agents/anthropic.js";
import { Toolbox } from "../../src/agents/toolbox.js";
import { DocumentIndex } from "../../src/indexes/document-index.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { anthropicMessage, ENTERPRISE_CATALOG, fakeApis, text, toolUse, type Turn } from "./fake-api.js";

const CATALOG = ENTERPRISE_CATALOG;
const start = fakeApis();

async function setup(turns: Turn[]) {
  const api = await start(turns);
  const client = new Anthropic({ apiKey: "test-key", baseURL: api.url, maxRetries: 0 });
  const catalog = await ToolIndex.fromFile(CATALOG);
  return { api, client, catalog };
}

type Block = Record<string, unknown>;
const tools = (body: Record<string, unknown>) => body.tools as Block[];
const messages = (body: Record<string, unknown>) => body.messages as { role: string; content: string | Block[] }[];
const lastUserBlocks = (body: Record<string, unknown>) => messages(body).at(-1)!.content as Block[];

describe("runAgent, search mode", () => {
  it("searches, calls the discovered tool and answers; the wire shows deferred tools and tool_reference blocks", async () => {
    const calls: unknown[] = [];
    const { api, client, catalog } = await setup([
      () => anthropicMessage([text("Let me find a tool."), toolUse("tool_search", { query: "stock level sku" }, "tu_1")], "tool_use"),
      () => anthropicMessage([toolUse("get_stock_level", { sku: "SP-001" }, "tu_2")], "tool_use"),
      () => anthropicMessage([text("SP-001 has 234 units available.")], "end_turn"),
    ]);
    const run = await runAgent({
      client, catalog, model: "claude-test", system: "You are an enterprise assistant.", prompt: "How many SP-001 do we have?",
      handlers: { get_stock_level: (input) => { calls.push(input); return { sku: input.sku, available: 234 }; } },
    });
    assert.equal(run.text, "SP-001 has 234 units available.");
    assert.equal(run.stopReason, "end_turn");
    assert.equal(api.requests.length, 3);
    assert.deepEqual(api.paths, ["/v1/messages", "/v1/messages", "/v1/messages"]);

    const first = api.requests[0];
    assert.equal(tools(first)[0].name, "tool_search");
    assert.equal(tools(first)[0].defer_loading, undefined);
    assert.equal(tools(first).length, 1 + catalog.size);
    assert.ok(tools(first).slice(1).every((t) => t.defer_loading === true && t.cache_control === undefined));
    assert.deepEqual(tools(first)[0].cache_control, undefined, "the cache breakpoint sits on the system prompt");
    assert.deepEqual((first.system as Block[]).at(-1)!.cache_control, { type: "ephemeral" });

    const searchResult = lastUserBlocks(api.requests[1])[0];
    assert.equal(searchResult.type, "tool_result");
    assert.equal(searchResult.tool_use_id, "tu_1");
    assert.equal(searchResult.is_error, undefined);
    const refs = searchResult.content as Block[];
    assert.ok(refs.length >= 1 && refs.length <= 5);
    assert.ok(refs.every((r) => r.type === "tool_reference"));
    assert.equal(refs[0].tool_name, "get_stock_level");

    assert.deepEqual(calls, [{ sku: "SP-001" }]);
    assert.deepEqual(lastUserBlocks(api.requests[2])[0], { type: "tool_result", tool_use_id: "tu_2", content: JSON.stringify({ sku: "SP-001", available: 234 }) });

    // The cached prefix (tools, then system) is byte-identical on every turn.
    const prefix = (i: number) => JSON.stringify([api.requests[i].tools, api.requests[i].system]);
    assert.equal(prefix(1), prefix(0));
    assert.equal(prefix(2), prefix(0));
    // The conversation only grows: each request starts with the previous one's messages.
    assert.deepEqual(messages(api.requests[2]).slice(0, 3), messages(api.requests[1]));

    assert.equal(run.stats.iterations, 3);
    assert.equal(run.stats.searches, 1);
    assert.equal(run.stats.toolCalls, 1);
    assert.ok(run.stats.toolsLoaded >= 1 && run.stats.loadedTools.includes("get_stock_level"));
    assert.equal(run.stats.validationErrors, 0);
    assert.equal(run.stats.inputTokens, 300);
    assert.equal(run.stats.outputTokens, 60);
  });

  it("feeds validation errors back with is_error, coerces obvious slips and applies defaults", async () => {
    const seen: unknown[] = [];
    const { api, client, catalog } = await setup([
      () => anthropicMessage([toolUse("trigger_reorder", { sku: "SP-9", quantity: "many" }, "tu_bad")], "tool_use"),
      () => anthropicMessage([toolUse("trigger_reorder", { sku: "SP-9", quantity: "5" }, "tu_good")], "tool_use"),
      () => anthropicMessage([text("Ordered.")], "end_turn"),
    ]);
    const run = await runAgent({
      client, catalog, model: "claude-test", prompt: "Reorder 5 of SP-9", alwaysLoad: ["trigger_reorder"],
      handlers: { trigger_reorder: (input) => { seen.push(input); return "PO-1 created"; } },
    });
    const bad = lastUserBlocks(api.requests[1])[0];
    assert.equal(bad.is_error, true);
    assert.match(String(bad.content), /Invalid input for trigger_reorder/);
    assert.match(String(bad.content), /"quantity" must be an integer \(got string "many"\)/);
    assert.match(String(bad.content), /call trigger_reorder again/);
    assert.deepEqual(seen, [{ sku: "SP-9", quantity: 5, urgent: false }]);
    assert.equal(lastUserBlocks(api.requests[2])[0].content, "PO-1 created");
    assert.equal(run.stats.validationErrors, 1);
    assert.equal(run.stats.toolCalls, 2);
    // An always-loaded tool is sent in full, not deferred, after the meta-tool.
    const sent = tools(api.requests[0]);
    assert.deepEqual(sent.slice(0, 2).map((t) => [t.name, t.defer_loading]), [["tool_search", undefined], ["trigger_reorder", undefined]]);
    assert.equal(sent.filter((t) => t.name === "trigger_reorder").length, 1);
  });

  it("runs parallel calls of one turn together and answers them in order; failures become is_error results", async () => {
    let release!: () => void;
    const bothStarted = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const start = async () => {
      if (++started === 2) release();
      await bothStarted; // only resolves if both handlers run at the same time
    };
    const { api, client, catalog } = await setup([
      () => anthropicMessage([
        toolUse("get_customer_profile", { customer_id: "C-1" }, "a"),
        toolUse("get_service_health", { service_name: "api" }, "b"),
        toolUse("get_employee_info", { employee_id: "E-1" }, "c"),
        toolUse("no_such_tool", {}, "d"),
        toolUse("process_refund", { order_id: "O-1", reason: "other" }, "e"),
      ], "tool_use"),
      () => anthropicMessage([text("done")], "end_turn"),
    ]);
    const run = await runAgent({
      client, catalog, model: "claude-test", prompt: "several things", timeoutMs: 50,
      handlers: {
        get_customer_profile: async () => { await start(); return { name: "A" }; },
        get_service_health: async () => { await start(); return { status: "healthy" }; },
        get_employee_info: () => { throw new Error("HR system offline"); },
        process_refund: (_input, { signal }) => new Promise((resolve) => signal.addEventListener("abort", () => resolve("late"))),
      },
    });
    const results = lastUserBlocks(api.requests[1]);
    assert.deepEqual(results.map((r) => r.tool_use_id), ["a", "b", "c", "d", "e"]);
    assert.deepEqual(results.map((r) => r.is_error ?? false), [false, false, true, true, true]);
    assert.match(String(results[2].content), /get_employee_info failed: HR system offline/);
    assert.match(String(results[3].content), /Unknown tool "no_such_tool".*tool_search/);
    assert.match(String(results[4].content), /did not finish within 50 ms/);
    assert.equal(run.stats.toolCalls, 5);
    assert.equal(run.stats.toolErrors, 3);
  });

  it("returns guidance when a search finds nothing, and stops at maxIterations", async () => {
    const loop: Turn = (_b, i) => anthropicMessage([toolUse("tool_search", { query: i === 0 ? "zzqx blorf" : "stock" })], "tool_use");
    const { api, client, catalog } = await setup([loop, loop, loop, loop]);
    const run = await runAgent({ client, catalog, model: "claude-test", prompt: "?", maxIterations: 3 });
    assert.equal(run.stopReason, "max_iterations");
    assert.equal(api.requests.length, 3);
    const guidance = lastUserBlocks(api.requests[1])[0];
    assert.equal(typeof guidance.content, "string");
    assert.match(String(guidance.content), /No tools match "zzqx blorf"/);
    assert.equal(run.stats.searches, 3);
  });

  it("takes a regex engine: the meta-tool's input becomes a pattern", async () => {
    const { api, client, catalog } = await setup([
      () => anthropicMessage([toolUse("tool_search", { pattern: "refund|reorder", limit: "2" })], "tool_use"),
      () => anthropicMessage([text("ok")], "end_turn"),
    ]);
    await runAgent({ client, catalog, model: "claude-test", prompt: "?", engine: "regex" });
    assert.deepEqual(Object.keys((tools(api.requests[0])[0].input_schema as Block).properties as Block), ["pattern", "limit"]);
    const refs = lastUserBlocks(api.requests[1])[0].content as Block[];
    assert.deepEqual(refs.map((r) => r.tool_name).sort(), ["process_refund", "trigger_reorder"]);
  });
});

describe("runAgent, streaming", () => {
  it("streams responses (SSE) and acts on the whole messages", async () => {
    const pieces: string[] = [];
    const { api, client, catalog } = await setup([
      () => anthropicMessage([text("Searching."), toolUse("tool_search", { query: "service health" }, "s1")], "tool_use"),
      () => anthropicMessage([toolUse("get_service_health", { service_name: "checkout", time_window: "15m" }, "h1")], "tool_use"),
      () => anthropicMessage([text("Checkout is healthy.")], "end_turn"),
    ]);
    const run = await runAgent({
      client, catalog, model: "claude-test", prompt: "Is checkout ok?", stream: true, onText: (d) => pieces.push(d),
      handlers: { get_service_health: (input) => ({ ...input, status: "healthy" }) },
    });
    assert.ok(api.requests.every((r) => r.stream === true));
    assert.equal(run.text, "Checkout is healthy.");
    assert.equal(pieces.join(""), "Searching.Checkout is healthy.");
    assert.equal(lastUserBlocks(api.requests[2])[0].content, JSON.stringify({ service_name: "checkout", time_window: "15m", status: "healthy" }));
    assert.equal(run.stats.toolCalls, 1);
    assert.equal(run.stats.outputTokens, 60);
  });
});

describe("runAgent, directory mode", () => {
  it("lists tools in the system prompt; describe_tool returns the schema plus a reference; the prefix never changes", async () => {
    const { api, client, catalog } = await setup([
      () => anthropicMessage([toolUse("describe_tool", { tool_name: "get_customer_profil" }, "d0")], "tool_use"),
      () => anthropicMessage([toolUse("describe_tool", { tool_name: "get_customer_profile" }, "d1")], "tool_use"),
      () => anthropicMessage([toolUse("get_customer_profile", { customer_id: "C-5521" }, "c1")], "tool_use"),
      () => anthropicMessage([text("VIP customer.")], "end_turn"),
    ]);
    const run = await runAgent({
      client, catalog, model: "claude-test", mode: "directory", system: "You are an enterprise assistant.", prompt: "Who is C-5521?",
      handlers: { get_customer_profile: (input) => ({ ...input, segment: "VIP" }) },
    });
    const system = api.requests[0].system as Block[];
    assert.equal(system.length, 2);
    assert.equal(system[0].text, "You are an enterprise assistant.");
    assert.match(String(system[1].text), /^TOOL DIRECTORY \(8 tools\)/);
    assert.match(String(system[1].text), /\[CRM\]\n- get_customer_profile: /);
    assert.deepEqual(system[1].cache_control, { type: "ephemeral" });
    assert.equal(tools(api.requests[0])[0].name, "describe_tool");
    assert.ok(tools(api.requests[0]).slice(1).every((t) => t.defer_loading === true));

    const unknown = lastUserBlocks(api.requests[1])[0];
    assert.equal(unknown.is_error, true);
    assert.match(String(unknown.content), /Did you mean: get_customer_profile/);
    const described = lastUserBlocks(api.requests[2])[0].content as Block[];
    assert.equal(described[0].type, "text");
    assert.deepEqual(JSON.parse(String(described[0].text)).input_schema, catalog.describe("get_customer_profile")!.input_schema);
    assert.deepEqual(described[1], { type: "tool_reference", tool_name: "get_customer_profile" });
    for (const i of [1, 2, 3]) {
      assert.equal(api.raw[i].indexOf(JSON.stringify(api.requests[0].system)) >= 0, true);
      assert.equal(JSON.stringify(api.requests[i].tools), JSON.stringify(api.requests[0].tools));
    }
    assert.equal(run.stats.describes, 2);
    assert.deepEqual(run.stats.loadedTools, ["get_customer_profile"]);
  });
});

describe("runAgent, server mode", () => {
  it("sends Anthropic's search tool with the catalog deferred and passes server blocks back untouched", async () => {
    const serverBlocks = [
      { type: "server_tool_use", id: "srvtoolu_1", name: "tool_search_tool_bm25", input: { query: "refund" }, caller: { type: "direct" } },
      { type: "tool_search_tool_result", tool_use_id: "srvtoolu_1", content: { type: "tool_search_tool_search_result", tool_references: [{ type: "tool_reference", tool_name: "process_refund" }] } },
    ];
    const { api, client, catalog } = await setup([
      () => anthropicMessage([...serverBlocks, toolUse("process_refund", { order_id: "O-7", reason: "defective" }, "r1")], "tool_use"),
      () => anthropicMessage([text("Refund started.")], "end_turn"),
    ]);
    const run = await runAgent({
      client, catalog, model: "claude-test", mode: "server", serverSearch: "bm25", prompt: "Refund order O-7, it arrived broken",
      handlers: { process_refund: () => ({ refund_id: "REF-1" }) },
    });
    const sent = tools(api.requests[0]);
    assert.deepEqual(sent[0], { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25", cache_control: { type: "ephemeral" } });
    assert.ok(sent.slice(1).every((t) => t.defer_loading === true));
    const assistant = messages(api.requests[1])[1];
    assert.equal(assistant.role, "assistant");
    assert.deepEqual((assistant.content as Block[]).slice(0, 2), serverBlocks);
    assert.equal(run.stats.searches, 1);
    assert.deepEqual(run.stats.loadedTools, ["process_refund"]);
    assert.equal(run.text, "Refund started.");
  });

  it("uses the regex server tool when asked", async () => {
    const catalog = await ToolIndex.fromFile(CATALOG);
    const request = buildAnthropicRequest(new Toolbox(catalog, { mode: "server" }), { model: "m", messages: [{ role: "user", content: "hi" }], serverSearch: "regex", cache: false });
    assert.deepEqual(request.tools![0], { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" });
  });
});

describe("runAgent, current API and beta headers", () => {
  it("sends no anthropic-beta header by default (tool search is in the current Messages API), and the ones given with betas", async () => {
    const { api, client, catalog } = await setup([
      () => anthropicMessage([text("a")], "end_turn"),
      () => anthropicMessage([text("b")], "end_turn"),
      () => anthropicMessage([text("c")], "end_turn"),
    ]);
    await runAgent({ client, catalog, model: "claude-test", mode: "server", prompt: "x" });
    assert.equal(api.paths[0], "/v1/messages");
    assert.equal(api.headers[0]["anthropic-beta"], undefined);
    await runAgent({ client, catalog, model: "claude-test", mode: "server", prompt: "x", betas: ["some-platform-beta", "another"] });
    assert.equal(api.headers[1]["anthropic-beta"], "some-platform-beta,another");
    await runAgent({ client, catalog, model: "claude-test", prompt: "x", stream: true, betas: ["streamed-beta"] });
    assert.equal(api.headers[2]["anthropic-beta"], "streamed-beta");
  });

  it("answers select:a,b from Claude Code-style clients with exactly those tool_reference blocks", async () => {
    const { api, client, catalog } = await setup([
      () => anthropicMessage([toolUse("tool_search", { query: "select:get_stock_level,trigger_reorder" }, "t1")], "tool_use"),
      () => anthropicMessage([text("ok")], "end_turn"),
    ]);
    const run = await runAgent({ client, catalog, model: "claude-test", prompt: "x" });
    const result = lastUserBlocks(api.requests[1])[0];
    assert.deepEqual(result.content, [{ type: "tool_reference", tool_name: "get_stock_level" }, { type: "tool_reference", tool_name: "trigger_reorder" }]);
    assert.deepEqual(run.stats.loadedTools, ["get_stock_level", "trigger_reorder"]);
  });
});

describe("knowledge tools", () => {
  it("adds search_docs and read_doc next to tool_search and counts them", async () => {
    const docs = await DocumentIndex.fromDocuments([
      { id: "kb-refunds", title: "Refund policy", body: "Refunds are possible within 14 days of purchase when less than 30% of the course is done." },
      { id: "kb-certificates", title: "Certificates", body: "Certificates are issued within a day of passing the final quiz." },
    ]);
    const { api, client, catalog } = await setup([
      () => anthropicMessage([toolUse("search_docs", { query: "refund" }, "s1")], "tool_use"),
      () => anthropicMessage([toolUse("read_doc", { id: "kb-refunds" }, "r1")], "tool_use"),
      () => anthropicMessage([text("Within 14 days.")], "end_turn"),
    ]);
    const run = await runAgent({ client, catalog, docs, docsOptions: { format: "search_result" }, model: "claude-test", prompt: "refund?" });
    assert.deepEqual(tools(api.requests[0]).slice(0, 3).map((t) => t.name), ["tool_search", "search_docs", "read_doc"]);
    const found = lastUserBlocks(api.requests[1])[0].content as Block[];
    assert.ok(found.some((b) => b.type === "search_result" && b.title === "Refund policy"));
    assert.equal(run.stats.docSearches, 1);
    assert.equal(run.stats.docReads, 1);
  });
});

describe("checkAnthropicRequest", () => {
  const ok = { name: "tool_search", input_schema: { type: "object" } };
  const deferred = { name: "get_weather", input_schema: { type: "object" }, defer_loading: true };
  const refTo = (name: string) => [{ role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: "x", content: [{ type: "tool_reference" as const, tool_name: name }] }] }];
  const check = (tools: unknown[], messages: unknown[] = []) => () => checkAnthropicRequest({ tools: tools as never, messages: messages as never });

  it("accepts a valid request", () => {
    assert.doesNotThrow(check([ok, deferred], refTo("get_weather")));
  });
  it("refuses a request where every tool is deferred", () => {
    assert.throws(check([deferred]), { code: "request_invalid", message: /at least one tool/ });
  });
  it("refuses cache_control on a deferred tool", () => {
    assert.throws(check([ok, { ...deferred, cache_control: { type: "ephemeral" } }]), { code: "request_invalid", message: /cannot carry cache_control/ });
  });
  it("refuses a reference to a tool that is not sent", () => {
    assert.throws(check([ok, deferred], refTo("get_forecast")), { code: "request_invalid", message: /"get_forecast", which is not in tools/ });
  });
  it("refuses bad and duplicate names", () => {
    assert.throws(check([ok, { ...deferred, name: "get weather" }, { ...deferred }, { ...deferred }]), (error: Error) => /must match/.test(error.message) && /used twice/.test(error.message));
  });
  it("is applied by runAgent before anything is sent", async () => {
    const catalog = await ToolIndex.fromTools([{ name: "cached", description: "x", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } }]);
    const { api, client } = await setup([() => anthropicMessage([text("never")], "end_turn")]);
    await assert.rejects(runAgent({ client, catalog, model: "m", prompt: "hi" }), { code: "request_invalid" });
    assert.equal(api.requests.length, 0);
  });
});
