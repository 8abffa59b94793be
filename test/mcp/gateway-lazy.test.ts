/**
 * The lazy gateway over a real SQLite store, in front of several copies of real MCP servers under different names
 * (our fixture server three times, server-memory twice). Child processes are counted from /proc (ps), not taken on
 * trust: after a restart with manifests a search starts none, a call starts exactly one, an idle stop ends it,
 * concurrent first calls start it once, and a changed configuration block invalidates that server's manifest only.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type GatewayConfig, parseGatewayConfig } from "../../src/mcp/config.js";
import { Gateway, type GatewayOptions } from "../../src/mcp/gateway.js";
import { SqliteStore } from "../../src/store/sqlite.js";
import { childPids, connectInMemory, eventually, FIXTURE_SERVER, foundNames, isAlive, serverScript, textOf } from "./helpers.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const FIXTURES = ["alpha", "beta", "gamma"];
const MEMORIES = ["notes", "facts"];

function children(): { fixture: number; memory: number } {
  return { fixture: childPids(process.pid, FIXTURE_SERVER).length, memory: childPids(process.pid, "server-memory").length };
}

describe("lazy gateway with manifests in a SQLite store", () => {
  const dir = makeTempDir("toolsearch-lazy-");
  let store: SqliteStore;
  const logs: string[] = [];
  const open: Gateway[] = [];

  const servers = (gammaArgs: string[] = []): GatewayConfig => parseGatewayConfig({
    mcpServers: {
      ...Object.fromEntries(FIXTURES.map((name) => [name, { command: process.execPath, args: [FIXTURE_SERVER, ...(name === "gamma" ? gammaArgs : [])] }])),
      ...Object.fromEntries(MEMORIES.map((name) => [name, { command: process.execPath, args: [serverScript("server-memory")], env: { MEMORY_FILE_PATH: join(dir, `${name}.jsonl`) } }])),
    },
  });
  const start = async (config: GatewayConfig, extra: Partial<GatewayOptions> = {}) => {
    const gateway = await Gateway.start({ config, manifests: store, log: (line) => logs.push(line), ...extra, upstream: { idleStopMs: 0, ...extra.upstream } });
    open.push(gateway);
    return gateway;
  };
  const startsOf = (gateway: Gateway) => Object.fromEntries([...gateway.upstreams].map(([name, u]) => [name, u.starts]));

  before(async () => {
    store = new SqliteStore(join(dir, "store.sqlite"));
    await store.migrate();
  });
  after(async () => {
    for (const gateway of open) await gateway.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("first launch: starts every server once to learn its tools, and stores a manifest for each", async () => {
    const gateway = await start(servers());
    assert.deepEqual(startsOf(gateway), { alpha: 1, beta: 1, gamma: 1, notes: 1, facts: 1 });
    assert.deepEqual(children(), { fixture: 3, memory: 2 });
    await eventually(async () => (await Promise.all([...FIXTURES, ...MEMORIES].map((s) => store.getManifest("gateway", s)))).every(Boolean));
    const alpha = await store.getManifest("gateway", "alpha");
    assert.ok((alpha!.tools as { name: string }[]).some((t) => t.name === "echo_text"));
    await gateway.close();
    await eventually(() => children().fixture + children().memory === 0);
  });

  describe("after a restart with manifests", () => {
    let gateway: Gateway;
    before(async () => {
      gateway = await start(servers(), { upstream: { idleStopMs: 500 } });
    });
    after(async () => {
      await gateway.close();
    });

    it("starts nothing, yet searches and describes every server's tools", async () => {
      assert.deepEqual(children(), { fixture: 0, memory: 0 });
      const client = await connectInMemory(gateway);
      const found = foundNames(await client.callTool({ name: "search_tools", arguments: { query: "create entities knowledge graph", limit: 4 } }));
      assert.ok(found.some((name) => name === "notes__create_entities" || name === "facts__create_entities"), found.join());
      const described = JSON.parse(textOf(await client.callTool({ name: "describe_tool", arguments: { name: "beta__echo_text" } })));
      assert.equal(described.server, "beta");
      assert.deepEqual(described.inputSchema.required, ["text"]);
      assert.deepEqual(children(), { fixture: 0, memory: 0 });
      assert.ok(Object.values(startsOf(gateway)).every((n) => n === 0));
      await client.close();
    });

    it("a call starts exactly that one server, and an idle stop ends it", async () => {
      const result = await gateway.callTool("call_tool", { name: "alpha__echo_text", arguments: { text: "hello" } });
      assert.equal(textOf(result), "hello");
      assert.deepEqual(children(), { fixture: 1, memory: 0 });
      assert.deepEqual(startsOf(gateway), { alpha: 1, beta: 0, gamma: 0, notes: 0, facts: 0 });
      const pid = gateway.upstreams.get("alpha")!.pid!;
      await eventually(() => gateway.upstreams.get("alpha")!.state === "stopped");
      await eventually(() => children().fixture === 0);
      await eventually(() => !isAlive(pid)); // a zombie awaiting its reaping still answers signal 0 for a moment
      assert.ok(logs.some((line) => /upstream "alpha" stopped after 1 s without a call/.test(line)));
      // Stopped is not down: its tools stay searchable, and the next call starts it again.
      assert.ok(gateway.index.get("alpha__echo_text"));
      assert.equal(textOf(await gateway.callTool("call_tool", { name: "alpha__ping" })), "pong");
      assert.equal(gateway.upstreams.get("alpha")!.starts, 2);
    });

    it("concurrent first calls start the server once", async () => {
      const texts = await Promise.all(Array.from({ length: 8 }, (_, i) => gateway.callTool("call_tool", { name: "notes__read_graph", arguments: {} }).then(textOf).then((t) => `${i}:${t.length > 0}`)));
      assert.deepEqual(texts, Array.from({ length: 8 }, (_, i) => `${i}:true`));
      assert.equal(gateway.upstreams.get("notes")!.starts, 1);
      assert.equal(children().memory, 1);
    });
  });

  it("a changed configuration block invalidates that server's manifest only", async () => {
    const before = await store.getManifest("gateway", "gamma");
    const gateway = await start(servers(["--changed"]));
    assert.deepEqual(startsOf(gateway), { alpha: 0, beta: 0, gamma: 1, notes: 0, facts: 0 });
    assert.deepEqual(children(), { fixture: 1, memory: 0 });
    assert.ok(logs.some((line) => /upstream "gamma" has a changed configuration: its manifest was dropped/.test(line)));
    await eventually(async () => (await store.getManifest("gateway", "gamma"))?.configHash !== before!.configHash);
    await gateway.close();
  });

  it("--eager starts every server whatever the manifests say", async () => {
    const gateway = await start(servers(["--changed"]), { eager: true });
    assert.deepEqual(startsOf(gateway), { alpha: 1, beta: 1, gamma: 1, notes: 1, facts: 1 });
    await gateway.close();
  });

  it("lists alwaysLoad tools without starting their server, and hides denied tools from search and calls", async () => {
    const config = parseGatewayConfig({
      mcpServers: {
        alpha: { command: process.execPath, args: [FIXTURE_SERVER], tools: { deny: ["freeze", "sleep_*"] }, alwaysLoad: ["ping"] },
        beta: { command: process.execPath, args: [FIXTURE_SERVER], tools: { allow: ["echo_*"] } },
      },
    });
    const gateway = await start(config);
    assert.deepEqual(children().fixture, 0, "both known from manifests: allow/deny/alwaysLoad do not change the hash");
    const client = await connectInMemory(gateway);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["search_tools", "describe_tool", "call_tool", "alpha__ping"]);
    assert.equal(children().fixture, 0);
    assert.equal(gateway.index.get("alpha__freeze"), undefined);
    assert.deepEqual(gateway.index.names().filter((n) => n.startsWith("beta__")), ["beta__echo_text"]);
    assert.match(textOf(await client.callTool({ name: "call_tool", arguments: { name: "alpha__sleep_forever" } })), /Unknown tool "alpha__sleep_forever"/);
    assert.equal(textOf(await client.callTool({ name: "alpha__ping", arguments: {} })), "pong");
    assert.equal(children().fixture, 1);
    await client.close();
    await gateway.close();
  });

  it("never shows an interpolated secret in logs or errors", async () => {
    const secret = "sk_live_7Hq2Lw9Zx4";
    const config = parseGatewayConfig({
      mcpServers: { billing: { command: process.execPath, args: ["-e", "console.error('rejected key ' + process.argv[1]); process.exit(3)", "${BILLING_KEY}"] } },
    }, "mcp.json", { BILLING_KEY: secret });
    const lines: string[] = [];
    const gateway = await Gateway.start({ config, environment: { BILLING_KEY: secret }, log: (line) => lines.push(line), upstream: { restartDelayMs: 60_000 } });
    open.push(gateway);
    const message = textOf(await gateway.callTool("call_tool", { name: "billing__charge" }));
    assert.match(message, /upstream server "billing" is down \(.*rejected key \*\*\*\)/);
    assert.ok(lines.some((line) => line.includes("rejected key ***")), lines.join("\n"));
    assert.ok(![message, ...lines].some((text) => text.includes(secret)));
    await gateway.close();
  });
});
