/**
 * The gateway in-process, in front of our small fixture server (pagination, list_changed, a hanging tool) and a static
 * catalog, driven by the SDK's own Client over an in-memory transport.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { parseGatewayConfig } from "../../src/mcp/config.js";
import { Gateway } from "../../src/mcp/gateway.js";
import { connectInMemory, eventually, FIXTURE_SERVER, foundNames, textOf } from "./helpers.js";

const staticTools = [
  { name: "get_stock_level", description: "Current stock level of a product in the warehouse.", input_schema: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] } },
];

describe("gateway in front of the fixture server", () => {
  let gateway: Gateway;
  let client: Client;
  const logs: string[] = [];

  before(async () => {
    const config = parseGatewayConfig({ mcpServers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER] } } });
    gateway = await Gateway.start({
      config,
      catalog: await ToolIndex.fromTools(staticTools),
      exposeFound: true,
      // Generous enough for a loaded machine: a normal call or a ping never takes a second.
      upstream: { callTimeoutMs: 1000, pingTimeoutMs: 2000, restartDelayMs: 100 },
      log: (line) => logs.push(line),
    });
    client = await connectInMemory(gateway);
  });
  after(async () => {
    await client.close();
    await gateway.close();
  });

  it("lists only its meta-tools", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["search_tools", "describe_tool", "call_tool"]);
  });

  it("indexes every page of the upstream's tools under namespaced, valid names", () => {
    const names = gateway.index.names().filter((n) => n.startsWith("fixture__")).sort();
    assert.equal(names.length, 6);
    assert.ok(names.includes("fixture__ping") && names.includes("fixture__echo_text"));
    const weather = names.find((n) => n.startsWith("fixture__weather_forecast_"));
    assert.ok(weather, `a sanitized name for weather.forecast in ${names}`);
    for (const name of names) assert.match(name, /^[a-zA-Z0-9_-]{1,64}$/);
  });

  it("searches upstream and static tools together, with schemas", async () => {
    const result = await client.callTool({ name: "search_tools", arguments: { query: "weather forecast city", limit: 3 } });
    const body = JSON.parse(textOf(result));
    assert.match(body.results[0].name, /^fixture__weather_forecast_/);
    assert.equal(body.results[0].server, "fixture");
    assert.deepEqual(body.results[0].inputSchema.required, ["city"]);
    assert.deepEqual(foundNames(await client.callTool({ name: "search_tools", arguments: { query: "stock level" } }))[0], "get_stock_level");
    const regex = await client.callTool({ name: "search_tools", arguments: { query: "^fixture__ping$", engine: "regex" } });
    assert.deepEqual(foundNames(regex), ["fixture__ping"]);
  });

  it("answers select:a,b with exactly the named tools, and close names for unknown ones", async () => {
    const result = await client.callTool({ name: "search_tools", arguments: { query: "select:fixture__ping, get_stock_level,fixture__pnig" } });
    const body = JSON.parse(textOf(result));
    assert.deepEqual(body.results.map((r: { name: string }) => r.name), ["fixture__ping", "get_stock_level"]);
    assert.equal(body.results[0].server, "fixture");
    assert.match(body.unknown, /"fixture__pnig".*close names: fixture__ping/);
    const none = await client.callTool({ name: "search_tools", arguments: { query: "select:nothing_here" } });
    assert.match(textOf(none), /No tool is named "nothing_here"/);
  });

  it("calls through to the original upstream name", async () => {
    const [weather] = foundNames(await client.callTool({ name: "search_tools", arguments: { query: "weather forecast" } }));
    const result = await client.callTool({ name: "call_tool", arguments: { name: weather, arguments: { city: "Hanoi" } } });
    assert.equal(textOf(result), "sunny in Hanoi");
  });

  it("refuses bad arguments before calling, naming the field", async () => {
    const result = await client.callTool({ name: "call_tool", arguments: { name: "fixture__echo_text", arguments: { txt: "hi" } } });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /missing required property "text"/);
  });

  it("explains static-only, unknown and meta-tool names", async () => {
    const stat = await client.callTool({ name: "call_tool", arguments: { name: "get_stock_level", arguments: { sku: "A" } } });
    assert.match(textOf(stat), /static catalog only/);
    const unknown = await client.callTool({ name: "call_tool", arguments: { name: "fixture__pingg" } });
    assert.match(textOf(unknown), /Did you mean: fixture__ping/);
    const described = await client.callTool({ name: "describe_tool", arguments: { name: "fixture__echo_text" } });
    assert.deepEqual(JSON.parse(textOf(described)), {
      name: "fixture__echo_text", description: "Echo the given text back.", server: "fixture",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    });
    const staticOne = JSON.parse(textOf(await client.callTool({ name: "describe_tool", arguments: { name: "get_stock_level" } })));
    assert.equal(staticOne.server, null);
    assert.deepEqual(staticOne.inputSchema.required, ["sku"]);
    assert.match(textOf(await client.callTool({ name: "describe_tool", arguments: { name: "get_stock" } })), /Did you mean: get_stock_level/);
  });

  it("times a hanging call out and keeps the server usable", async () => {
    const result = await client.callTool({ name: "call_tool", arguments: { name: "fixture__sleep_forever" } });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /did not answer sleep_forever within 1000 ms; the server itself still answers/);
    assert.equal(textOf(await client.callTool({ name: "call_tool", arguments: { name: "fixture__ping" } })), "pong");
  });

  it("follows notifications/tools/list_changed, also in a burst", async () => {
    const add = (name: string) => client.callTool({ name: "call_tool", arguments: { name: "fixture__add_tool", arguments: { name } } });
    await Promise.all([add("translate_text"), add("spell_check"), add("summarize_text")]);
    await eventually(() => ["translate_text", "spell_check", "summarize_text"].every((n) => gateway.index.get(`fixture__${n}`) !== undefined));
    assert.deepEqual(foundNames(await client.callTool({ name: "search_tools", arguments: { query: "translate text", limit: 1 } })), ["fixture__translate_text"]);
  });

  it("with exposeFound, adds found tools to its own list and notifies the client", async () => {
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void notified++);
    await client.callTool({ name: "search_tools", arguments: { query: "echo text", limit: 1 } });
    await eventually(() => notified > 0);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "fixture__echo_text"));
    assert.equal(textOf(await client.callTool({ name: "fixture__echo_text", arguments: { text: "direct" } })), "direct");
  });

  it("restarts a hung server (a call timed out and pings go unanswered), then its tools work again", async () => {
    const pid = gateway.upstreams.get("fixture")!.pid;
    const result = await client.callTool({ name: "call_tool", arguments: { name: "fixture__freeze" } });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /no longer answers at all: it is being restarted/);
    await eventually(async () => textOf(await client.callTool({ name: "call_tool", arguments: { name: "fixture__ping" } })) === "pong");
    assert.notEqual(gateway.upstreams.get("fixture")!.pid, pid);
    assert.ok(logs.some((line) => line.includes('upstream "fixture" went down: hung')));
  });
});

describe("gateway with upstreams that cannot start", () => {
  it("keeps serving and says why each one is down", async () => {
    const config = parseGatewayConfig({
      mcpServers: {
        crashing: { command: process.execPath, args: ["-e", "console.error('missing API key'); process.exit(3)"] },
        missing: { command: "no-such-command-for-toolsearch" },
        fixture: { command: process.execPath, args: [FIXTURE_SERVER] },
      },
    });
    const gateway = await Gateway.start({ config, upstream: { restartDelayMs: 60_000 }, log: () => undefined });
    const call = async (name: string) => textOf(await gateway.callTool("call_tool", { name }));
    assert.match(await call("crashing__anything"), /upstream server "crashing" is down \(.*last stderr line: missing API key\); next restart attempt in \d/);
    assert.match(await call("missing__anything"), /upstream server "missing" is down \(spawn no-such-command-for-toolsearch ENOENT\)/);
    assert.equal(await call("fixture__ping"), "pong");
    await gateway.close();
  });
});
