/**
 * Two replicas that first see different definitions of the same upstream tool at the same moment (the stop-39
 * finding): the first pin is a compare-and-set, so one definition wins in the store and the other replica holds its
 * own as changed, as if it had read the winner's pin before. Deterministic: two store handles on one SQLite file, and
 * two on one real PostgreSQL database, opened before either writes, then written one after the other; the gateway
 * case gates one replica's write so the other's lands first.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { parseGatewayConfig } from "../../src/mcp/config.js";
import { Gateway } from "../../src/mcp/gateway.js";
import { PostgresStore } from "../../src/store/postgres.js";
import { SqliteStore } from "../../src/store/sqlite.js";
import type { Store } from "../../src/store/types.js";
import { PinBook } from "../../src/trust/pin-book.js";
import { type PostgresServer, postgresMissing, startPostgres } from "../helpers/postgres.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { connectInMemory, eventually, ROOT, textOf } from "../mcp/helpers.js";

const object = (properties: Record<string, object> = {}) => ({ type: "object" as const, properties });
const ADD: McpTool = { name: "add", description: "Adds two numbers and returns the sum.", inputSchema: object({ a: { type: "number" }, b: { type: "number" } }) };
const ADD_V2: McpTool = { ...ADD, description: "Adds two numbers, rounding the sum when asked.", inputSchema: object({ a: { type: "number" }, b: { type: "number" }, round: { type: "boolean" } }) };
const ECHO: McpTool = { name: "echo", description: "Echoes the given text back.", inputSchema: object({ text: { type: "string" } }) };

/** Both books open on an empty store, then each applies its own listing; the second one's write loses. */
async function raceTwoReplicas(first: Store, second: Store): Promise<void> {
  const servedChanges: string[] = [];
  const a = await PinBook.open(first, "gateway", { log: () => {} });
  const b = await PinBook.open(second, "gateway", { log: () => {}, onServedChange: (server) => servedChanges.push(server) });
  // Each thinks it sees the server first, so each serves its own definition for now.
  // A's write lands first; B read the store before it, so B too takes the server as seen for the first time.
  assert.deepEqual(a.apply("math", [ADD, ECHO]).map((t) => t.description), [ADD.description, ECHO.description]);
  await a.whenSaved();
  assert.deepEqual(b.apply("math", [ADD_V2, ECHO]).map((t) => t.description), [ADD_V2.description, ECHO.description]);
  await b.whenSaved();

  const stored = await first.listPins("gateway");
  assert.deepEqual(stored.map((p) => [p.tool, (p.pinned as McpTool).description, (p.held as McpTool | undefined)?.description, p.reason]), [
    ["add", ADD.description, ADD_V2.description, "changed"],
    ["echo", ECHO.description, undefined, undefined],
  ], "the first pin stands; the loser's definition waits for review");
  assert.deepEqual(servedChanges, ["math"], "the loser is told once that what it served changed");
  const held = b.held();
  assert.deepEqual(held.map((h) => [h.name, h.reason, h.pinned?.description, h.held.description]), [["math__add", "changed", ADD.description, ADD_V2.description]]);
  assert.deepEqual(b.apply("math", [ADD_V2, ECHO]).map((t) => t.description), [ADD.description, ECHO.description], "the loser now serves the winner's pin");
  await b.whenSaved();
  assert.equal(b.digest(), (await PinBook.open(second, "gateway")).digest(), "the loser's view is the store's");
  assert.deepEqual(a.apply("math", [ADD, ECHO]).map((t) => t.description), [ADD.description, ECHO.description]);
}

/** Both replicas see the same definition: nothing is held and nobody is told of a change. */
async function sameDefinition(first: Store, second: Store): Promise<void> {
  const servedChanges: string[] = [];
  const a = await PinBook.open(first, "same", { log: () => {} });
  const b = await PinBook.open(second, "same", { log: () => {}, onServedChange: (server) => servedChanges.push(server) });
  a.apply("math", [ADD]);
  await a.whenSaved();
  b.apply("math", [ADD]);
  await b.whenSaved();
  assert.deepEqual(b.held(), []);
  assert.deepEqual(servedChanges, []);
  assert.deepEqual((await second.listPins("same")).map((p) => [p.tool, p.held]), [["add", undefined]]);
}

describe("first pin race (SQLite, two handles on one file)", () => {
  const dir = makeTempDir("toolsearch-first-pin-");
  let first: SqliteStore;
  let second: SqliteStore;
  before(async () => {
    first = new SqliteStore(join(dir, "store.sqlite"));
    await first.migrate();
    second = new SqliteStore(join(dir, "store.sqlite"));
    await second.migrate();
  });
  after(async () => {
    await first.close();
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the first pin wins; the other replica holds its definition as changed and serves the winner's", () => raceTwoReplicas(first, second));
  it("the same definition on both replicas pins once, with nothing held", () => sameDefinition(first, second));
});

describe("first pin race (PostgreSQL, two handles on one database)", { skip: postgresMissing }, () => {
  let server: PostgresServer;
  let first: PostgresStore;
  let second: PostgresStore;
  before(async () => {
    server = await startPostgres();
    const url = await server.createDatabase();
    first = new PostgresStore(url, { schema: "pins" });
    await first.migrate();
    second = new PostgresStore(url, { schema: "pins" });
    await second.migrate();
  });
  after(async () => {
    await first?.close();
    await second?.close();
    await server?.destroy();
  });

  it("the first pin wins; the other replica holds its definition as changed and serves the winner's", () => raceTwoReplicas(first, second));
  it("the same definition on both replicas pins once, with nothing held", () => sameDefinition(first, second));

  it("two claims of one tool sent together: exactly one wins, and the loser gets the winner's pin", async () => {
    for (let round = 0; round < 20; round++) {
      const tool = `t${round}`;
      const results = await Promise.all([
        first.claimPins([{ owner: "gateway", server: "race", tool, pinned: { ...ADD, name: tool } }]),
        second.claimPins([{ owner: "gateway", server: "race", tool, pinned: { ...ADD_V2, name: tool } }]),
      ]);
      const losers = results.filter((lost) => lost.length === 1);
      assert.equal(losers.length, 1, `round ${round}: one claim wins, one loses`);
      const [stored] = (await first.listPins("gateway")).filter((p) => p.server === "race" && p.tool === tool);
      assert.deepEqual(losers[0][0].pinned, stored.pinned, "the loser is shown what was pinned");
    }
  });
});

describe("first pin race between two gateways (SQLite)", () => {
  const SERVER = join(ROOT, "test", "fixtures", "mcp", "drifting-server.mjs");
  const start = async (toolsFile: string, pinStore: Store) => {
    const config = parseGatewayConfig({ mcpServers: { math: { command: process.execPath, args: [SERVER], env: { DRIFT_TOOLS_FILE: toolsFile } } } });
    const gateway = await Gateway.start({ config, pins: { store: pinStore }, eager: true, log: () => {} });
    return { gateway, client: await connectInMemory(gateway) };
  };

  it("the replica whose first pin lost switches to the winner's definition and holds its own", async () => {
    const dir = makeTempDir("toolsearch-first-pin-gw-");
    const store = new SqliteStore(join(dir, "store.sqlite"));
    await store.migrate();
    const open: Gateway[] = [];
    try {
      writeFileSync(join(dir, "a.json"), JSON.stringify([ADD]));
      writeFileSync(join(dir, "b.json"), JSON.stringify([ADD_V2]));
      // Replica A's first pin waits at this gate, so replica B opens its pins on an empty store and pins first.
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const gated = new Proxy(store, {
        get(target, key, receiver) {
          if (key === "claimPins") return async (...args: Parameters<Store["claimPins"]>) => (await gate, target.claimPins(...args));
          const value = Reflect.get(target, key, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const a = await start(join(dir, "a.json"), gated);
      open.push(a.gateway);
      const b = await start(join(dir, "b.json"), store);
      await b.gateway.close();
      const describeAdd = async () => JSON.parse(textOf(await a.client.callTool({ name: "describe_tool", arguments: { name: "math__add" } }))).description;
      assert.equal(await describeAdd(), ADD.description, "before its write lands, A serves what it saw");
      release();
      // A's write lost the claim: it serves B's pin from then on (waited for as a state, not a delay).
      await eventually(async () => (await describeAdd()) === ADD_V2.description, 100, 50);
      assert.deepEqual(a.gateway.held().map((h) => [h.name, h.reason, h.held.description]), [["math__add", "changed", ADD.description]]);
      assert.deepEqual((await store.listPins("gateway")).map((p) => [(p.pinned as McpTool).description, (p.held as McpTool).description]), [[ADD_V2.description, ADD.description]]);
    } finally {
      for (const gateway of open) await gateway.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
