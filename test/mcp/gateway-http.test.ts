/**
 * `toolsearch mcp --http` as a real process: Streamable HTTP on loopback behind a bearer token, in front of a static
 * catalog, server-memory over stdio and server-everything over Streamable HTTP. Driven by the SDK's Client over HTTP
 * and by @modelcontextprotocol/inspector's CLI mode (a second, independent client).
 */
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { childPids, CLI, eventually, foundNames, freePort, ROOT, serverScript, textOf, waitForLine } from "./helpers.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const TOKEN = "test-token-123";
const INSPECTOR = join(ROOT, "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "cli.js");

describe("toolsearch mcp over Streamable HTTP", () => {
  const dir = makeTempDir("toolsearch-mcp-http-");
  let everything: ChildProcess;
  let gateway: ChildProcess;
  let url: string;
  let client: Client;

  let everythingPort: number;
  const startEverything = async () => {
    everything = spawn(process.execPath, [serverScript("server-everything"), "streamableHttp"], { env: { ...process.env, PORT: String(everythingPort) }, stdio: ["ignore", "ignore", "pipe"] });
    await waitForLine(everything, /listening on port/);
  };

  before(async () => {
    everythingPort = await freePort();
    await startEverything();
    const config = {
      mcpServers: {
        memory: { command: process.execPath, args: [serverScript("server-memory")], env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
        everything: { url: `http://127.0.0.1:${everythingPort}/mcp` },
      },
    };
    writeFileSync(join(dir, "mcp.json"), JSON.stringify(config));
    gateway = spawn(process.execPath, ["--import", "tsx", CLI, "mcp", "--config", join(dir, "mcp.json"), "--store", join(dir, "store.sqlite"), "--catalog", join(ROOT, "test/fixtures/mcp/catalog.json"), "--http", "0", "--token", TOKEN, "--restart-delay", "300"], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    url = (await waitForLine(gateway, /listening on (\S+)/))[1];
    client = new Client({ name: "http-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    gateway?.kill("SIGTERM");
    everything?.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("listens on loopback and refuses requests without the bearer token", async () => {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    assert.equal(response.status, 401);
  });

  it("searches the static catalog and both upstreams", async () => {
    const search = async (query: string) => foundNames(await client.callTool({ name: "search_tools", arguments: { query } }));
    assert.equal((await search("stock level warehouse"))[0], "get_stock_level");
    assert.ok((await search("create entities")).includes("memory__create_entities"));
    assert.ok((await search("echo message")).includes("everything__echo"));
  });

  it("calls tools of a stdio upstream and of an HTTP upstream", async () => {
    const created = await client.callTool({ name: "call_tool", arguments: { name: "memory__create_entities", arguments: { entities: [{ name: "Grace", entityType: "person", observations: ["COBOL"] }] } } });
    assert.notEqual(created.isError, true, textOf(created));
    const echoed = await client.callTool({ name: "call_tool", arguments: { name: "everything__echo", arguments: { message: "over http" } } });
    assert.match(textOf(echoed), /over http/);
  });

  it("refuses bad arguments naming the field", async () => {
    const result = await client.callTool({ name: "call_tool", arguments: { name: "everything__echo", arguments: { message: { nested: true } } } });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /"message" must be a string/);
  });

  it("reports an HTTP upstream that went away, and uses it again once it is back", async () => {
    const echo = () => client.callTool({ name: "call_tool", arguments: { name: "everything__echo", arguments: { message: "again" } } });
    const stopped = new Promise((resolve) => everything.once("exit", resolve));
    everything.kill("SIGKILL");
    await stopped;
    const result = await echo();
    assert.equal(result.isError, true);
    assert.match(textOf(result), /upstream server "everything" is down/);
    await startEverything();
    await eventually(async () => (await echo()).isError !== true, 100, 200);
  });

  it("answers @modelcontextprotocol/inspector's CLI mode (list and call)", async () => {
    // inspector-cli reads "../package.json" relative to its working directory: run it from test/.
    const inspect = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(process.execPath, [INSPECTOR, "--cli", url, "--transport", "http", "--header", `Authorization: Bearer ${TOKEN}`, ...args], { cwd: join(ROOT, "test") });
      return JSON.parse(stdout);
    };
    const listed = await inspect("--method", "tools/list");
    assert.deepEqual(listed.tools.map((t: { name: string }) => t.name), ["search_tools", "describe_tool", "call_tool"]);
    const called = await inspect("--method", "tools/call", "--tool-name", "search_tools", "--tool-arg", "query=read graph", "limit=2");
    assert.ok(foundNames(called).includes("memory__read_graph"));
  });

  it("stops on SIGTERM and ends its children", async () => {
    const children = childPids(gateway.pid!, "server-memory");
    assert.equal(children.length, 1);
    const exited = new Promise((resolve) => gateway.once("exit", resolve));
    gateway.kill("SIGTERM");
    await exited;
    await eventually(() => children.every((pid) => { try { process.kill(pid, 0); return false; } catch { return true; } }), 50, 100);
  });
});
