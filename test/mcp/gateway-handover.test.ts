/**
 * `Gateway.handOver`: open sessions move to a new gateway (what the service does when a collection is replaced) and
 * keep working after the old one closes; exposed tools the new gateway lacks are dropped and the client is notified.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { parseGatewayConfig } from "../../src/mcp/config.js";
import { Gateway } from "../../src/mcp/gateway.js";
import { CONFORMANCE_SERVER, connectInMemory, eventually, FIXTURE_SERVER, foundNames, textOf } from "./helpers.js";

const tool = (name: string, description: string) => ({ name, description, input_schema: { type: "object", properties: {} } });
const quiet = () => {};

describe("Gateway.handOver", () => {
  const gateways: Gateway[] = [];
  after(async () => {
    for (const gateway of gateways) await gateway.close();
  });
  const start = async (options: Parameters<typeof Gateway.start>[0]) => {
    const gateway = await Gateway.start({ log: quiet, ...options });
    gateways.push(gateway);
    return gateway;
  };

  it("moves every session to the new gateway: closing the old one ends none, and searches see the new catalog", async () => {
    const old = await start({ catalog: await ToolIndex.fromTools([tool("tide_table", "Tide tables for a harbour.")]) });
    const next = await start({ catalog: await ToolIndex.fromTools([tool("sunrise_time", "When the sun rises in a city.")]) });
    const client = await connectInMemory(old);
    assert.deepEqual(foundNames(await client.callTool({ name: "search_tools", arguments: { query: "harbour" } })), ["tide_table"]);
    old.handOver(next);
    assert.equal(old.sessionCount, 0);
    assert.equal(next.sessionCount, 1);
    await old.close();
    assert.deepEqual(foundNames(await client.callTool({ name: "search_tools", arguments: { query: "sun rises" } })), ["sunrise_time"]);
    assert.deepEqual(foundNames(await client.callTool({ name: "search_tools", arguments: { query: "harbour" } })), []);
    await client.close();
    assert.equal(next.sessionCount, 0, "the session is tracked by the gateway it moved to");
  });

  it("keeps exposed tools the new gateway has, drops the others, and notifies the session of the change", async () => {
    const fixture = { command: process.execPath, args: [FIXTURE_SERVER] };
    const old = await start({ config: parseGatewayConfig({ mcpServers: { a: fixture, b: fixture } }), exposeFound: true });
    const next = await start({ config: parseGatewayConfig({ mcpServers: { a: fixture } }), exposeFound: true });
    const client = await connectInMemory(old);
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void notified++);
    await client.callTool({ name: "search_tools", arguments: { query: "echo the given text", limit: 2 } });
    const listed = async () => (await client.listTools()).tools.map((t) => t.name).filter((n) => n.includes("__"));
    assert.deepEqual((await listed()).sort(), ["a__echo_text", "b__echo_text"]);
    await eventually(() => notified === 1);

    old.handOver(next);
    await old.close();
    await eventually(() => notified === 2);
    assert.deepEqual(await listed(), ["a__echo_text"]);
    assert.equal(textOf(await client.callTool({ name: "a__echo_text", arguments: { text: "moved" } })), "moved");
    await client.close();
  });
  it("serves the new gateway's resources to a moved session and renews its subscriptions there", async () => {
    const upstream = { conf: { command: process.execPath, args: [CONFORMANCE_SERVER] } };
    const old = await start({ config: parseGatewayConfig({ mcpServers: upstream }) });
    const next = await start({ config: parseGatewayConfig({ mcpServers: upstream }) });
    const client = await connectInMemory(old);
    const subscribed: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
      if (n.params.logger === "conf" && n.params.data === "subscribed test://watched-resource") subscribed.push(n.params);
    });
    await client.subscribeResource({ uri: "test://watched-resource" });
    await eventually(() => subscribed.length === 1);
    old.handOver(next);
    await old.close();
    await eventually(() => subscribed.length === 2); // the new gateway's upstream was subscribed too
    const read = await client.readResource({ uri: "test://static-text" });
    assert.match((read.contents[0] as { text: string }).text, /static text resource/);
    await client.unsubscribeResource({ uri: "test://watched-resource" });
    await client.close();
  });
});
