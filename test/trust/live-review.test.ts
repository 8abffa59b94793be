/**
 * Review decisions take effect live (issue 38): an MCP client session stays open on a running gateway while a held
 * definition is approved elsewhere, and the session then sees the approved definition, with
 * `notifications/tools/list_changed` because the tool is in its `tools/list` (`alwaysLoad`).
 * - `toolsearch mcp` as a real child process on a real SQLite store, with the approval made by `toolsearch mcp review
 *   --approve` in another process (the gateway polls the store, `--review-poll`);
 * - the service's `/mcp/{c}` over real HTTP, with the approval made over REST, and with one made by `toolsearch mcp
 *   review --collection` in another process on the same SQLite file (both announced through the change feed).
 * The upstream is drifting-server.mjs, a real stdio MCP server whose tools come from a file.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { runCliAsync } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { CLI, eventually, ROOT, textOf } from "../mcp/helpers.js";
import { Embedder } from "../../src/embeddings/embedder.js";
import { buildService } from "../../src/server/app.js";
import { createApiKey } from "../../src/server/auth.js";
import { Collections } from "../../src/server/collections.js";
import { PostgresStore } from "../../src/store/postgres.js";
import { LetterProvider } from "../helpers/letter-provider.js";
import { type PostgresServer, postgresMissing, startPostgres } from "../helpers/postgres.js";
import { makeService, type TestService } from "../server/helpers.js";

const SERVER = join(ROOT, "test", "fixtures", "mcp", "drifting-server.mjs");
const object = (properties: Record<string, object> = {}) => ({ type: "object", properties });
const ECHO = { name: "echo", description: "Echoes the given text back.", inputSchema: object({ text: { type: "string" } }) };
const ECHO_V3 = { name: "echo", description: "Echoes the given text back, reversed when asked.", inputSchema: object({ text: { type: "string" }, reverse: { type: "boolean" } }) };
const ECHO_V2 = { name: "echo", description: "Echoes the given text back, upper-cased when asked.", inputSchema: object({ text: { type: "string" }, upper: { type: "boolean" } }) };

/** A client that counts the `tools/list_changed` notifications it receives. */
function countingClient(name: string): { client: Client; changes: () => number } {
  const client = new Client({ name, version: "1.0.0" });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    changes++;
  });
  return { client, changes: () => changes };
}

/** An HTTP MCP session on `url`, counting its `list_changed` notifications; closed by the suite through `clients`. */
async function openSession(url: string, headers: Record<string, string>, name: string, clients: Client[]): Promise<{ client: Client; changes: () => number }> {
  const counting = countingClient(name);
  await counting.client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(counting.client);
  return counting;
}

async function describedEcho(client: Client, name: string): Promise<string> {
  const text = textOf(await client.callTool({ name: "describe_tool", arguments: { name } }));
  return text.startsWith("{") ? (JSON.parse(text) as { description: string }).description : text;
}

async function listedEcho(client: Client, name: string): Promise<string | undefined> {
  return (await client.listTools()).tools.find((t) => t.name === name)?.description;
}

describe("live review: toolsearch mcp sees a decision of toolsearch mcp review in another process", () => {
  const dir = makeTempDir("toolsearch-live-review-");
  const storePath = join(dir, "store.sqlite");
  const toolsFile = join(dir, "tools.json");
  const configFile = join(dir, "mcp.json");
  const clients: Client[] = [];
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  const gateway = async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", CLI, "mcp", "--config", configFile, "--store", storePath, "--eager", "--review-poll", "1"],
      cwd: ROOT,
      stderr: "ignore",
    });
    const counting = countingClient("live-review");
    await counting.client.connect(transport);
    clients.push(counting.client);
    return counting;
  };

  before(() => {
    writeFileSync(configFile, JSON.stringify({ mcpServers: { math: { command: process.execPath, args: [SERVER], env: { DRIFT_TOOLS_FILE: toolsFile }, alwaysLoad: ["echo"] } } }));
  });

  it("an open session gets list_changed and the approved definition, without a restart", async () => {
    writeFileSync(toolsFile, JSON.stringify([ECHO]));
    const first = await gateway();
    await eventually(async () => (await listedEcho(first.client, "math__echo")) === ECHO.description);
    await first.client.close();

    writeFileSync(toolsFile, JSON.stringify([ECHO_V2]));
    const { client, changes } = await gateway();
    await eventually(async () => (await listedEcho(client, "math__echo")) !== undefined);
    assert.equal(await listedEcho(client, "math__echo"), ECHO.description, "the pinned definition is served while the change is held");
    const review = await runCliAsync(["mcp", "review", "--store", storePath, "--json"]);
    assert.equal(review.code, 0, review.stderr);
    assert.deepEqual((JSON.parse(review.stdout) as { held: { name: string; reason: string }[] }).held.map((h) => [h.name, h.reason]), [["math__echo", "changed"]]);

    const before = changes();
    const approved = await runCliAsync(["mcp", "review", "--store", storePath, "--approve", "math__echo"]);
    assert.equal(approved.code, 0, approved.stderr);
    await eventually(() => changes() > before, 100, 100);
    assert.equal(await listedEcho(client, "math__echo"), ECHO_V2.description);
    assert.equal(await describedEcho(client, "math__echo"), ECHO_V2.description);
    const call = await client.callTool({ name: "math__echo", arguments: { text: "hi", upper: true } });
    assert.ok(!call.isError, textOf(call));
    assert.equal(textOf(call), 'echo ran with {"text":"hi","upper":true}', "the new parameter passes the pinned schema now");
  });
});

describe("live review: the service's /mcp/{c} sees a REST decision in an open session", () => {
  let s: TestService;
  let base: string;
  let toolsFile: string;
  const clients: Client[] = [];
  const put = (version: string) => s.app.inject({
    method: "PUT", url: "/v1/collections/math", headers: s.auth(s.keys.admin),
    payload: { kind: "mcp", mcpServers: { math: { command: process.execPath, args: [SERVER], env: { DRIFT_TOOLS_FILE: toolsFile, VERSION: version }, alwaysLoad: ["echo"] } } },
  });
  const held = async () => ((await s.app.inject({ method: "GET", url: "/v1/collections/math/review", headers: s.auth(s.keys.admin) })).json() as { held: { name: string }[] }).held;

  before(async () => {
    s = await makeService();
    base = await s.app.listen({ port: 0, host: "127.0.0.1" });
    toolsFile = join(s.dir, "tools.json");
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await s?.close();
  });

  it("an open session gets list_changed and the approved definition", async () => {
    writeFileSync(toolsFile, JSON.stringify([ECHO]));
    assert.equal((await put("1")).statusCode, 201);
    await eventually(async () => (await s.store.listPins("collection:math")).length > 0, 300);
    writeFileSync(toolsFile, JSON.stringify([ECHO_V2]));
    assert.equal((await put("2")).statusCode, 200);
    await eventually(async () => (await held()).length > 0, 300);

    const { client, changes } = await openSession(`${base}/mcp/math`, s.auth(s.keys.admin), "live-review-service", clients);
    await eventually(async () => (await listedEcho(client, "math__echo")) !== undefined);
    assert.equal(await listedEcho(client, "math__echo"), ECHO.description);

    const before = changes();
    const approved = await s.app.inject({ method: "POST", url: "/v1/collections/math/review", headers: s.auth(s.keys.admin), payload: { approve: ["math__echo"] } });
    assert.equal(approved.statusCode, 200, approved.body);
    await eventually(() => changes() > before, 100, 100);
    await eventually(async () => (await listedEcho(client, "math__echo")) === ECHO_V2.description);
    assert.equal(await describedEcho(client, "math__echo"), ECHO_V2.description);
  });

  it("a decision of toolsearch mcp review --collection in another process reaches an open session (the change feed)", async () => {
    // The service and the CLI share one SQLite file; the service learns of the CLI's commit by the store's watch.
    const storePath = join(s.dir, "store.sqlite");
    writeFileSync(toolsFile, JSON.stringify([ECHO_V3]));
    assert.equal((await put("3")).statusCode, 200);
    await eventually(async () => (await held()).length > 0, 300);

    const { client, changes } = await openSession(`${base}/mcp/math`, s.auth(s.keys.admin), "live-review-service-cli", clients);
    await eventually(async () => (await listedEcho(client, "math__echo")) === ECHO_V2.description);

    const listed = await runCliAsync(["mcp", "review", "--store", storePath, "--collection", "math", "--json"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual((JSON.parse(listed.stdout) as { held: { name: string; reason: string }[] }).held.map((h) => [h.name, h.reason]), [["math__echo", "changed"]]);
    const gatewayOnly = await runCliAsync(["mcp", "review", "--store", storePath, "--json"]);
    assert.deepEqual((JSON.parse(gatewayOnly.stdout) as { held: unknown[] }).held, [], "without --collection, toolsearch mcp's own pins");
    const unknown = await runCliAsync(["mcp", "review", "--store", storePath, "--collection", "nope", "--approve", "math__echo"]);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /unknown_collection|no mcp collection "nope"/);

    const before = changes();
    const approved = await runCliAsync(["mcp", "review", "--store", storePath, "--collection", "math", "--approve", "math__echo"]);
    assert.equal(approved.code, 0, approved.stderr);
    await eventually(() => changes() > before, 100, 100);
    await eventually(async () => (await listedEcho(client, "math__echo")) === ECHO_V3.description);
    assert.equal(await describedEcho(client, "math__echo"), ECHO_V3.description);
    assert.deepEqual(await held(), []);
    const audited = (await s.store.listAudit({ collection: "math" })).filter((e) => e.who === "cli");
    assert.deepEqual(audited.map((e) => [e.action, e.target, e.outcome]), [["review_approve", "math__echo", "ok"]], "the audit log has the CLI's decision");
  });
});

/** `eventually` (30 s), failing with what was waited for. */
async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  await eventually(check, 300, 100).catch((error: Error) => {
    throw new Error(`${what}: ${error.message}`);
  });
}

describe("live review: toolsearch mcp review --collection on PostgreSQL reaches every replica's open session", { skip: postgresMissing }, () => {
  let server: PostgresServer;
  let url: string;
  const dir = makeTempDir("toolsearch-live-review-pg-");
  const toolsFile = join(dir, "tools.json");
  const replicas: { store: PostgresStore; collections: Collections; app: Awaited<ReturnType<typeof buildService>>; base: string }[] = [];
  const clients: Client[] = [];
  let auth: Record<string, string>;

  /** One replica of the service: its own store connection, collections and HTTP listener, as a `serve` process has. */
  const replica = async () => {
    const store = new PostgresStore(url);
    await store.migrate();
    const collections = new Collections(store, { embedder: new Embedder(new LetterProvider(), { cache: store }), log: () => {} });
    await collections.start();
    const app = await buildService({ collections, logger: false });
    const base = await app.listen({ port: 0, host: "127.0.0.1" });
    replicas.push({ store, collections, app, base });
    return replicas[replicas.length - 1];
  };
  const heldOn = async (r: (typeof replicas)[number]) => ((await r.app.inject({ method: "GET", url: "/v1/collections/math/review", headers: auth })).json() as { held: { name: string }[] }).held;

  before(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
    await replica();
    await replica();
    auth = { authorization: `Bearer ${(await createApiKey(replicas[0].store, { scope: "admin" })).key}` };
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    for (const r of replicas) {
      await r.app.close();
      await r.collections.close();
      await r.store.close();
    }
    await server?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it("both replicas serve the approved definition, and the session on the second gets list_changed", async () => {
    const [first, second] = replicas;
    const put = (version: string) => first.app.inject({
      method: "PUT", url: "/v1/collections/math", headers: auth,
      payload: { kind: "mcp", mcpServers: { math: { command: process.execPath, args: [SERVER], env: { DRIFT_TOOLS_FILE: toolsFile, VERSION: version }, alwaysLoad: ["echo"] } } },
    });
    writeFileSync(toolsFile, JSON.stringify([ECHO]));
    assert.equal((await put("1")).statusCode, 201);
    await until("the first listing is pinned", async () => (await first.store.listPins("collection:math")).length > 0);
    // The second replica's upstream must have read the first definition too before the file changes: one started
    // later would see the second definition first and, finding no pin yet, pin it (the last pin written wins).
    const warm = await openSession(`${second.base}/mcp/math`, auth, "live-review-pg-warm", clients);
    await until("the second replica's upstream answers with the first definition", async () => {
      const call = await warm.client.callTool({ name: "math__echo", arguments: { text: "hi" } }).catch(() => undefined);
      return call !== undefined && !call.isError;
    });
    writeFileSync(toolsFile, JSON.stringify([ECHO_V2]));
    assert.equal((await put("2")).statusCode, 200);
    await until("the changed definition is held", async () => (await heldOn(first)).length > 0);

    const { client, changes } = await openSession(`${second.base}/mcp/math`, auth, "live-review-pg", clients);
    await until("the second replica serves the pinned definition", async () => (await listedEcho(client, "math__echo")) === ECHO.description);

    const before = changes();
    const approved = await runCliAsync(["mcp", "review", "--store", url, "--collection", "math", "--approve", "math__echo"]);
    assert.equal(approved.code, 0, approved.stderr);
    await until("list_changed reaches the session", () => changes() > before);
    await until("the session lists the approved definition", async () => (await listedEcho(client, "math__echo")) === ECHO_V2.description);
    assert.deepEqual(await heldOn(first), []);
    assert.deepEqual(await heldOn(second), []);
  });
});
