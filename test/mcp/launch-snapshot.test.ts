/**
 * The launch snapshot (src/mcp/launch-snapshot.ts) over a real SQLite store: a launch from manifests stores the index
 * it built; the next launch with the same servers, tool lists and controls loads it (no snapshot written) and answers
 * exactly as a build does — searches, descriptions, calls routed to the right server, the same lines logged about
 * skipped tools. Anything that changes what the index is built from rebuilds it, and so does a damaged snapshot.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { configHash, type GatewayConfig, parseGatewayConfig } from "../../src/mcp/config.js";
import { Gateway } from "../../src/mcp/gateway.js";
import { KEPT_SETS, launchSnapshotKey } from "../../src/mcp/launch-snapshot.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { SqliteStore } from "../../src/store/sqlite.js";
import { FIXTURE_SERVER, textOf } from "./helpers.js";

const object = (properties: Record<string, unknown> = {}, required: string[] = []) => ({ type: "object", properties, required });
/** What the fixture server lists (a subset, as a manifest holds it), plus a tool whose schema no draft accepts. */
const FIXTURE_TOOLS = [
  { name: "ping", description: "Answer pong, to check the server is alive.", inputSchema: object() },
  { name: "echo_text", description: "Echo the given text back.", inputSchema: object({ text: { type: "string" } }, ["text"]) },
  { name: "weather.forecast", description: "Weather forecast for a city.", inputSchema: object({ city: { type: "string" } }, ["city"]) },
  { name: "broken_schema", description: "A tool whose schema has a typo in a type.", inputSchema: object({ n: { type: "intger" } }) },
];
const QUERIES = ["echo text back", "weather forecast city", "pong alive", "select:alpha__echo_text,beta__ping"];

describe("launch snapshot of the manifest index", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolsearch-launch-snapshot-"));
  let store: SqliteStore;
  const writes: string[] = [];
  const open: Gateway[] = [];

  const config = (controls: Record<string, unknown> = {}, names = ["alpha", "beta", "gamma"]): GatewayConfig => parseGatewayConfig({
    mcpServers: Object.fromEntries(names.map((name) => [name, { command: process.execPath, args: [FIXTURE_SERVER], ...(name === "gamma" ? controls : {}) }])),
  });
  /** Stores a manifest for every server of `gateway`, as a gateway that ran them would have. */
  const manifests = async (gateway: GatewayConfig, tools: unknown[] = FIXTURE_TOOLS) => {
    for (const [server, block] of Object.entries(gateway.mcpServers)) await store.putManifest({ owner: "gateway", server, configHash: configHash(block), tools });
  };
  const start = async (gateway: GatewayConfig, logs: string[] = [], catalog?: ToolIndex) => {
    writes.length = 0;
    const started = await Gateway.start({ config: gateway, manifests: store, catalog, log: (line) => logs.push(line), upstream: { idleStopMs: 0 } });
    open.push(started);
    return started;
  };
  /** Everything a client can see without calling an upstream. */
  const answers = async (gateway: Gateway) => ({
    searches: await Promise.all(QUERIES.map(async (query) => textOf(await gateway.callTool("search_tools", { query, limit: 10 })))),
    describe: textOf(await gateway.callTool("describe_tool", { name: "gamma__weather_forecast" })),
    listed: gateway.listTools().map((t) => t.name),
    size: gateway.index.size,
  });
  const stop = async (gateway: Gateway) => {
    await gateway.close();
    open.splice(open.indexOf(gateway), 1);
  };

  before(async () => {
    store = new SqliteStore(join(dir, "store.sqlite"));
    await store.migrate();
    const setSetting = store.setSetting.bind(store);
    store.setSetting = async (key, value) => {
      writes.push(key);
      await setSetting(key, value);
    };
  });
  after(async () => {
    for (const gateway of open) await gateway.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a launch builds the index from the manifests and stores it; the next loads it and answers the same", async () => {
    const servers = config({ alwaysLoad: ["ping", "no_such_tool"] });
    await manifests(servers);
    const firstLogs: string[] = [];
    const first = await start(servers, firstLogs);
    const built = await answers(first);
    await stop(first); // waits for the snapshot to be written
    const setting = launchSnapshotKey("gateway", ["alpha", "beta", "gamma"].map((name) => [name, "", [], {}]));
    assert.ok(writes.includes(setting), `snapshot written under ${setting}: ${writes.join(", ")}`);
    assert.equal(built.size, 9, "3 servers × 3 valid tools; the broken schema is skipped");

    const secondLogs: string[] = [];
    const second = await start(servers, secondLogs);
    assert.deepEqual(writes, [], "nothing rebuilt, nothing written");
    assert.deepEqual(await answers(second), built);
    const skipped = (logs: string[]) => logs.filter((line) => /skipped|alwaysLoad/.test(line));
    assert.equal(skipped(firstLogs).length, 4, firstLogs.join("\n")); // the broken schema thrice, the unknown alwaysLoad once
    assert.deepEqual(skipped(secondLogs), skipped(firstLogs));
    assert.deepEqual([...second.upstreams.values()].map((u) => u.starts), [0, 0, 0], "a search starts no server");

    // Routes come from the snapshot too: a call reaches the right server (started now) under its own tool name.
    const echoed = await second.callTool("call_tool", { name: "beta__echo_text", arguments: { text: "from the snapshot" } });
    assert.equal(textOf(echoed), "from the snapshot");
    assert.deepEqual([...second.upstreams.values()].map((u) => u.starts), [0, 1, 0]);
    await stop(second);
  });

  it("a changed tool list or filter rebuilds the index, and the new one is what gets searched", async () => {
    const servers = config();
    await manifests(servers, [...FIXTURE_TOOLS, { name: "translate_text", description: "Translate text into another language.", inputSchema: object() }]);
    const changedTools = await start(servers);
    assert.ok(writes.some((key) => key.startsWith("gateway-index:gateway:")), "rebuilt and written");
    assert.match(textOf(await changedTools.callTool("search_tools", { query: "translate language" })), /alpha__translate_text/);
    await stop(changedTools);

    const filtered = await start(config({ tools: { deny: ["echo_*"] } }));
    assert.ok(writes.length > 0, "a new filter rebuilds");
    assert.doesNotMatch(textOf(await filtered.callTool("search_tools", { query: "echo text back", limit: 10 })), /gamma__echo_text/);
    assert.match(textOf(await filtered.callTool("search_tools", { query: "echo text back", limit: 10 })), /alpha__echo_text/);
    await stop(filtered);

    const again = await start(config({ tools: { deny: ["echo_*"] } }));
    assert.deepEqual(writes, [], "the same filter again loads the snapshot");
    await stop(again);
  });

  it("a damaged snapshot is rebuilt quietly", async () => {
    const servers = config();
    await manifests(servers);
    await stop(await start(servers));
    const setting = launchSnapshotKey("gateway", ["alpha", "beta", "gamma"].map((name) => [name, "", [], {}]));
    const value = (await store.getSetting(setting)) as Record<string, unknown>;
    await store.setSetting(setting, { ...value, data: Buffer.from("not an index snapshot").toString("base64") });
    const logs: string[] = [];
    const gateway = await start(servers, logs);
    assert.ok(writes.includes(setting), "rebuilt and written again");
    assert.match(textOf(await gateway.callTool("search_tools", { query: "weather forecast city" })), /weather_forecast/);
    assert.equal(logs.filter((line) => /error|could not/i.test(line)).length, 0, logs.join("\n"));
    await stop(gateway);
  });

  it("stores nothing when a static catalog shares the index", async () => {
    const servers = config();
    await manifests(servers);
    const catalog = await ToolIndex.fromTools([{ name: "get_weather", description: "Weather now.", input_schema: object() }]);
    const gateway = await start(servers, [], catalog);
    assert.deepEqual(writes, []);
    assert.equal(gateway.index.size, 10);
    await stop(gateway);
  });

  it(`keeps at most ${KEPT_SETS} snapshots per owner, dropping the least recently saved`, async () => {
    const sets = Array.from({ length: KEPT_SETS + 1 }, (_, i) => ["alpha", "beta", "gamma"].slice(0, 1).concat([`extra${i}`]));
    for (const names of sets) {
      const servers = config({}, names);
      await manifests(servers);
      await stop(await start(servers));
    }
    const key = (names: string[]) => launchSnapshotKey("gateway", names.map((name) => [name, "", [], {}]));
    assert.equal(await store.getSetting(key(sets[0])), undefined, "the oldest set was dropped");
    for (const names of sets.slice(1)) assert.notEqual(await store.getSetting(key(names)), undefined);
  });
});
