/**
 * `mcp` collections of a real `toolsearch serve` start their upstreams lazily, as the gateway does (SPEC §11), with
 * the reference MCP servers from npm: the first run learns each server's tools and keeps manifests in the store
 * (owner `collection:<name>`); after a restart the collection is searchable at once with no server running, the first
 * calls start only the server they need (once, however many arrive together), and `--idle-stop` ends it again.
 * Child processes are counted with `ps`. The session flags of `serve` reach `/mcp/{c}`.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { openStore } from "../../src/store/open.js";
import { childPids, eventually, foundNames, isAlive, serverScript, textOf } from "../mcp/helpers.js";
import { type ServeProcess, startServe, tempDir, waitReady } from "./helpers.js";

const MEMORY = serverScript("server-memory");
const FILESYSTEM = serverScript("server-filesystem");

describe("mcp collections of toolsearch serve start their servers lazily", () => {
  const dir = tempDir();
  const store = join(dir, "store.sqlite");
  const config = join(dir, "team.json");
  writeFileSync(config, JSON.stringify({
    mcpServers: {
      memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
      files: { command: process.execPath, args: [FILESYSTEM, dir] },
    },
  }));
  const running = new Set<ServeProcess>();
  const clients: Client[] = [];
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    for (const p of running) await p.stop("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  const serve = async (...flags: string[]) => {
    const p = await startServe(["--store", store, "--no-auth", "--mcp-config", config, ...flags]);
    running.add(p);
    await waitReady(p.url);
    return p;
  };
  const stop = async (p: ServeProcess) => {
    assert.equal(await p.stop("SIGTERM"), 0);
    running.delete(p);
  };
  const children = (p: ServeProcess, script: string) => childPids(p.child.pid!, script);
  const connect = async (p: ServeProcess) => {
    const client = new Client({ name: "lazy-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${p.url}/mcp/team`)));
    clients.push(client);
    return client;
  };
  const restSearch = async (p: ServeProcess, query: string) => {
    const answer = await fetch(`${p.url}/v1/collections/team/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, limit: 10 }) });
    assert.equal(answer.status, 200);
    return ((await answer.json()) as { results: { name: string }[] }).results.map((r) => r.name);
  };

  /** Upstreams of the collection in this state, from `/metrics`. */
  const upstreams = async (p: ServeProcess, state: string) => {
    const text = await (await fetch(`${p.url}/metrics`)).text();
    const line = text.split("\n").find((l) => l.startsWith(`toolsearch_mcp_upstreams{collection="team",state="${state}"}`));
    return line ? Number(line.split(" ").pop()) : 0;
  };

  test("first run: every server starts once to list its tools, and their manifests are stored", async () => {
    const p = await serve();
    await eventually(() => children(p, MEMORY).length === 1 && children(p, FILESYSTEM).length === 1, 300, 100);
    const opened = await openStore(store);
    try {
      await eventually(async () => Boolean((await opened.getManifest("collection:team", "memory")) && (await opened.getManifest("collection:team", "files"))), 300, 100);
      const manifest = await opened.getManifest("collection:team", "memory");
      assert.ok((manifest!.tools as { name: string }[]).some((t) => t.name === "read_graph"));
    } finally {
      await opened.close();
    }
    const pids = [...children(p, MEMORY), ...children(p, FILESYSTEM)];
    await stop(p);
    assert.ok(pids.every((pid) => !isAlive(pid)), "stopping the service stops its upstreams");
  });

  test("after a restart: searchable with no server running; concurrent first calls start only the server they need, once; --idle-stop ends it", async () => {
    const p = await serve("--idle-stop", "5", "--max-sessions", "1", "--session-idle", "600");
    assert.ok((await restSearch(p, "read the knowledge graph")).includes("memory__read_graph"), "searchable from the stored manifest");
    const client = await connect(p);
    assert.ok(foundNames(await client.callTool({ name: "search_tools", arguments: { query: "list directory contents" } })).some((n) => n.startsWith("files__")));
    assert.equal(children(p, MEMORY).length + children(p, FILESYSTEM).length, 0, "searching started nothing");
    assert.equal(await upstreams(p, "stopped"), 2);
    const second = await fetch(`${p.url}/mcp/team`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "second", version: "1" } } }),
    });
    assert.equal(second.status, 503, "--max-sessions 1 reached the service");
    assert.match(await second.text(), /at most 1 \(--max-sessions\)\. .*Sessions idle for 600 s are closed/);

    const calls = await Promise.all(Array.from({ length: 6 }, () => client.callTool({ name: "call_tool", arguments: { name: "memory__read_graph", arguments: {} } })));
    for (const result of calls) assert.ok(!result.isError, textOf(result));
    assert.match(textOf(calls[0]), /entities/);
    assert.equal(children(p, MEMORY).length, 1, "six concurrent first calls shared one start");
    assert.equal(children(p, FILESYSTEM).length, 0, "the server no call needed stayed stopped");
    assert.equal(await upstreams(p, "ready"), 1);

    await eventually(() => children(p, MEMORY).length === 0, 300, 100);
    assert.ok((await restSearch(p, "read the knowledge graph")).includes("memory__read_graph"), "an idle-stopped server stays searchable");
    // With the client's session still open (its GET stream too): SIGTERM must still end the process, with code 0.
    await stop(p);
  });
});
