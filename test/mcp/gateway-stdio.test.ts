/**
 * `toolsearch mcp` as a real process over stdio, in front of three real MCP servers from npm (everything, filesystem,
 * memory), driven by the SDK's own Client: search finds upstream tools, call_tool runs them, bad arguments are
 * refused naming the field, a killed upstream is reported and comes back, and shutdown ends every child.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { childPids, CLI, eventually, foundNames, isAlive, ROOT, serverScript, textOf } from "./helpers.js";
import { makeTempDir } from "../helpers/temp-dir.js";

describe("toolsearch mcp over stdio with real upstream servers", () => {
  const dir = makeTempDir("toolsearch-mcp-");
  const files = join(dir, "files");
  let client: Client;
  let transport: StdioClientTransport;
  let gatewayPid: number;

  before(async () => {
    const config = {
      mcpServers: {
        filesystem: { command: process.execPath, args: [serverScript("server-filesystem"), dir] },
        memory: { command: process.execPath, args: [serverScript("server-memory")], env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
        everything: { command: process.execPath, args: [serverScript("server-everything"), "stdio"] },
      },
    };
    writeFileSync(join(dir, "mcp.json"), JSON.stringify(config));
    transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", CLI, "mcp", "--config", join(dir, "mcp.json"), "--store", join(dir, "store.sqlite"), "--restart-delay", "1500"],
      cwd: ROOT,
      stderr: "pipe",
    });
    client = new Client({ name: "stdio-test", version: "1.0.0" });
    await client.connect(transport);
    gatewayPid = transport.pid!;
  });

  after(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("exposes three meta-tools instead of every upstream tool", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["search_tools", "describe_tool", "call_tool"]);
  });

  it("finds tools of each upstream", async () => {
    const search = async (query: string) => foundNames(await client.callTool({ name: "search_tools", arguments: { query } }));
    assert.ok((await search("write file")).includes("filesystem__write_file"));
    assert.ok((await search("create entities knowledge graph")).includes("memory__create_entities"));
    assert.ok((await search("sum two numbers")).includes("everything__get-sum"));
  });

  it("runs a tool for real: a file written through server-filesystem exists on disk", async () => {
    const path = join(dir, "hello.txt");
    const result = await client.callTool({ name: "call_tool", arguments: { name: "filesystem__write_file", arguments: { path, content: "written through the gateway" } } });
    assert.notEqual(result.isError, true, textOf(result));
    assert.equal(readFileSync(path, "utf8"), "written through the gateway");
    const sum = await client.callTool({ name: "call_tool", arguments: { name: "everything__get-sum", arguments: { a: 2, b: 40 } } });
    assert.match(textOf(sum), /42/);
  });

  it("passes an upstream tool error back", async () => {
    const result = await client.callTool({ name: "call_tool", arguments: { name: "filesystem__read_text_file", arguments: { path: "/etc/hostname" } } });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /denied|outside|not allowed/i);
  });

  it("refuses bad arguments with a message naming the field", async () => {
    const result = await client.callTool({ name: "call_tool", arguments: { name: "filesystem__write_file", arguments: { path: join(files, "x.txt") } } });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /missing required property "content"/);
    assert.equal(existsSync(join(files, "x.txt")), false);
  });

  it("reports a killed upstream, keeps the others working, and brings it back", async () => {
    const [memoryPid] = childPids(gatewayPid, "server-memory");
    assert.ok(memoryPid, "the memory server runs as a child of the gateway");
    process.kill(memoryPid, "SIGKILL");
    const readGraph = () => client.callTool({ name: "call_tool", arguments: { name: "memory__read_graph", arguments: {} } });
    let reported = "";
    await eventually(async () => {
      const result = await readGraph();
      if (result.isError) reported = textOf(result);
      return reported !== "";
    }, 100, 50);
    assert.match(reported, /upstream server "memory" is (down|still starting)/);
    const others = await client.callTool({ name: "call_tool", arguments: { name: "everything__echo", arguments: { message: "still here" } } });
    assert.match(textOf(others), /still here/);
    await eventually(async () => (await readGraph()).isError !== true, 150, 100);
    assert.ok(childPids(gatewayPid, "server-memory")[0] !== memoryPid);
  });

  it("ends every child process when the client goes away", async () => {
    const children = [...childPids(gatewayPid, "server-")];
    assert.equal(children.length, 3);
    await client.close();
    await eventually(() => children.every((pid) => !isAlive(pid)) && !isAlive(gatewayPid), 100, 100);
  });
});
