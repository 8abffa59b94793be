/**
 * `/mcp/{c}` of a real `toolsearch serve` speaks MCP beyond tools (SPEC §14): an `mcp` collection of the reference
 * server-everything lists its resources and prompts from the stored manifest after a restart with no child running
 * (counted with ps), and reading a resource or getting a prompt starts it; a `docs` collection's documents are
 * resources that `search_docs` links to. What runs an upstream needs the `call` scope.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { openStore } from "../../src/store/open.js";
import { callsUpstream } from "../../src/server/routes/mcp.js";
import { childPids, eventually, serverScript } from "../mcp/helpers.js";
import { HELP_CENTER, type ServeProcess, startServe, tempDir, waitReady } from "./helpers.js";

const EVERYTHING = serverScript("server-everything");
const STATIC_DOC = "demo://resource/static/document/architecture.md";

describe("/mcp/{c} beyond tools", () => {
  const dir = tempDir();
  const store = join(dir, "store.sqlite");
  const config = join(dir, "demo.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } } }));
  const running = new Set<ServeProcess>();
  const clients: Client[] = [];
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    for (const p of running) await p.stop("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });
  const serve = async () => {
    const p = await startServe(["--store", store, "--no-auth", "--mcp-config", config, "--docs", HELP_CENTER]);
    running.add(p);
    await waitReady(p.url);
    return p;
  };
  const connect = async (p: ServeProcess, collection: string) => {
    const client = new Client({ name: "resources-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${p.url}/mcp/${collection}`)));
    clients.push(client);
    return client;
  };

  test("an mcp collection lists resources and prompts from its manifest, and reads and gets after a restart", async () => {
    const first = await serve();
    const opened = await openStore(store);
    try {
      await eventually(async () => (await opened.getManifest("collection:demo", "everything"))?.offer !== undefined, 300, 100);
    } finally {
      await opened.close();
    }
    assert.equal(await first.stop("SIGTERM"), 0);
    running.delete(first);

    const p = await serve();
    const client = await connect(p, "demo");
    assert.ok((await client.listResources()).resources.some((r) => r.uri === STATIC_DOC));
    assert.ok((await client.listPrompts()).prompts.some((prompt) => prompt.name === "everything__simple-prompt"));
    assert.equal(childPids(p.child.pid!, EVERYTHING).length, 0, "listing started nothing");
    const read = await client.readResource({ uri: STATIC_DOC });
    assert.ok(((read.contents[0] as { text?: string }).text ?? "").length > 0);
    const prompt = await client.getPrompt({ name: "everything__simple-prompt" });
    assert.ok(prompt.messages.length >= 1);
    assert.equal(childPids(p.child.pid!, EVERYTHING).length, 1);
  });

  test("a docs collection's documents are resources that search_docs links to", async () => {
    const p = [...running][0];
    const client = await connect(p, "help-center");
    const { resources } = await client.listResources();
    assert.ok(resources.length > 0 && resources.every((r) => r.uri.startsWith("toolsearch://docs/help-center/")));
    const result = await client.callTool({ name: "search_docs", arguments: { query: "refund", limit: 2 } });
    const link = (result.content as { type: string; uri?: string }[]).find((b) => b.type === "resource_link");
    assert.ok(link?.uri);
    const read = await client.readResource({ uri: link.uri });
    assert.ok(((read.contents[0] as { text?: string }).text ?? "").length > 0);
  });

  test("what runs an upstream needs the call scope; the collection's own documents do not", () => {
    assert.equal(callsUpstream({ method: "prompts/get", params: { name: "everything__simple-prompt" } }), true);
    assert.equal(callsUpstream({ method: "resources/read", params: { uri: STATIC_DOC } }), true);
    assert.equal(callsUpstream({ method: "resources/subscribe", params: { uri: STATIC_DOC } }), true);
    assert.equal(callsUpstream({ method: "completion/complete", params: {} }), true);
    assert.equal(callsUpstream({ method: "resources/read", params: { uri: "toolsearch://docs/help-center/kb-refunds" } }), false);
    assert.equal(callsUpstream({ method: "resources/list" }), false);
    assert.equal(callsUpstream({ method: "prompts/list" }), false);
  });
});
