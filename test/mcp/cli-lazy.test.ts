/**
 * `toolsearch mcp --config … --store …` as a real process, twice: the first run learns every server's tools and
 * stores manifests; the second starts no server until a call needs one, and `--idle-stop` ends it again.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { SqliteStore } from "../../src/store/sqlite.js";
import { childPids, CLI, eventually, FIXTURE_SERVER, foundNames, ROOT, textOf } from "./helpers.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const NAMES = ["red", "green", "blue", "cyan"];

describe("toolsearch mcp with a manifest store (command line)", () => {
  const dir = makeTempDir("toolsearch-cli-lazy-");
  const storePath = join(dir, "store.sqlite");
  writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: Object.fromEntries(NAMES.map((n) => [n, { command: process.execPath, args: [FIXTURE_SERVER] }])) }));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const launch = async (...flags: string[]) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", CLI, "mcp", "--config", join(dir, "mcp.json"), "--store", storePath, ...flags],
      cwd: ROOT,
      stderr: "ignore",
    });
    const client = new Client({ name: "cli-lazy", version: "1.0.0" });
    await client.connect(transport);
    return { client, pid: transport.pid! };
  };

  it("first run starts every server and stores their manifests", async () => {
    const { client, pid } = await launch();
    await client.callTool({ name: "search_tools", arguments: { query: "echo" } }); // waits for the first attempts
    assert.equal(childPids(pid, FIXTURE_SERVER).length, NAMES.length);
    const store = new SqliteStore(storePath);
    await eventually(async () => (await Promise.all(NAMES.map((n) => store.getManifest("gateway", n)))).every(Boolean));
    await store.close();
    await client.close();
  });

  it("second run: searching starts none, a call starts one, --idle-stop ends it", async () => {
    const { client, pid } = await launch("--idle-stop", "4");
    const found = foundNames(await client.callTool({ name: "search_tools", arguments: { query: "echo the given text", limit: 10 } }));
    assert.deepEqual(found.filter((n) => n.endsWith("__echo_text")).sort(), NAMES.map((n) => `${n}__echo_text`).sort());
    assert.equal(childPids(pid, FIXTURE_SERVER).length, 0);
    assert.equal(textOf(await client.callTool({ name: "call_tool", arguments: { name: "green__echo_text", arguments: { text: "lazy" } } })), "lazy");
    assert.equal(childPids(pid, FIXTURE_SERVER).length, 1);
    await eventually(() => childPids(pid, FIXTURE_SERVER).length === 0, 300, 100);
    await client.close();
  });
});
