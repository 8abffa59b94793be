/**
 * Resources, templates, prompts, completion and logging of a real upstream (@modelcontextprotocol/server-everything)
 * through the gateway, driven by the official SDK client. Over stdio with manifests in a real SQLite store: the first
 * launch learns the offer and stores it; after a restart everything is listed with no child process running (counted
 * with ps), and reading a resource or getting a prompt starts exactly one. Then a subscription's
 * `resources/updated` and the upstream's log messages reach the client. Over Streamable HTTP: listing, reading and
 * getting from an HTTP upstream.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  ErrorCode, LoggingMessageNotificationSchema, McpError, PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { parseGatewayConfig } from "../../src/mcp/config.js";
import { Gateway } from "../../src/mcp/gateway.js";
import { SqliteStore } from "../../src/store/sqlite.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { childPids, CONFORMANCE_SERVER, connectInMemory, eventually, freePort, serverScript, textOf, waitForLine } from "./helpers.js";

const STATIC_DOC = "demo://resource/static/document/architecture.md";
const everythingChildren = () => childPids(process.pid, "server-everything").length;

describe("upstream resources and prompts through the gateway (stdio, lazy)", () => {
  const dir = makeTempDir("toolsearch-resources-");
  let store: SqliteStore;
  const config = parseGatewayConfig({
    mcpServers: {
      everything: { command: process.execPath, args: [serverScript("server-everything")], prompts: { deny: ["resource-*"] } },
    },
  });
  const start = () => Gateway.start({ config, manifests: store, log: () => undefined, upstream: { idleStopMs: 0, restartDelayMs: 200 } });

  before(async () => {
    store = new SqliteStore(join(dir, "store.sqlite"));
    await store.migrate();
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("first launch: the manifest holds the server's resources, templates and prompts", async () => {
    const gateway = await start();
    await eventually(async () => (await store.getManifest("gateway", "everything"))?.offer !== undefined);
    const { offer } = (await store.getManifest("gateway", "everything"))!;
    assert.ok(offer!.resources.some((r) => (r as { uri: string }).uri === STATIC_DOC));
    assert.ok(offer!.resourceTemplates.length >= 1);
    assert.ok(offer!.prompts.some((p) => (p as { name: string }).name === "simple-prompt"));
    await gateway.close();
    await eventually(() => everythingChildren() === 0);
  });

  describe("after a restart", () => {
    let gateway: Gateway;
    let client: Client;
    before(async () => {
      gateway = await start();
      client = await connectInMemory(gateway);
    });
    after(async () => {
      await client.close();
      await gateway.close();
    });

    it("declares the capabilities and lists resources, templates and prompts without starting the server", async () => {
      const capabilities = client.getServerCapabilities()!;
      assert.deepEqual(capabilities.resources, { subscribe: true, listChanged: true });
      assert.deepEqual(capabilities.prompts, { listChanged: true });
      assert.ok(capabilities.completions && capabilities.logging);
      const { resources } = await client.listResources();
      assert.ok(resources.some((r) => r.uri === STATIC_DOC), "URIs are kept as the upstream wrote them");
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.ok(resourceTemplates.some((t) => t.uriTemplate.startsWith("demo://resource/dynamic/text/")));
      const names = (await client.listPrompts()).prompts.map((p) => p.name);
      assert.ok(names.includes("everything__simple-prompt") && names.includes("everything__completable-prompt"), names.join());
      assert.ok(!names.some((n) => n.startsWith("everything__resource-")), "prompts.deny hides them");
      assert.equal(everythingChildren(), 0);
      assert.equal(gateway.upstreams.get("everything")!.starts, 0);
    });

    it("reads a resource and a template's resource, and gets a prompt, starting the server once", async () => {
      const read = await client.readResource({ uri: STATIC_DOC });
      assert.equal(read.contents[0].uri, STATIC_DOC);
      assert.ok(((read.contents[0] as { text?: string }).text ?? "").length > 0);
      assert.equal(everythingChildren(), 1);
      const dynamic = await client.readResource({ uri: "demo://resource/dynamic/text/2" });
      assert.match((dynamic.contents[0] as { text: string }).text, /2/);
      const prompt = await client.getPrompt({ name: "everything__args-prompt", arguments: { city: "Lisbon" } });
      assert.match(JSON.stringify(prompt.messages), /Lisbon/);
      assert.equal(gateway.upstreams.get("everything")!.starts, 1);
      assert.equal(everythingChildren(), 1);
    });

    it("completes a prompt argument through the upstream, and an unknown reference to nothing", async () => {
      const done = await client.complete({ ref: { type: "ref/prompt", name: "everything__completable-prompt" }, argument: { name: "department", value: "Eng" } });
      assert.ok(done.completion.values.includes("Engineering"), JSON.stringify(done));
      const none = await client.complete({ ref: { type: "ref/prompt", name: "no_such_prompt" }, argument: { name: "x", value: "" } });
      assert.deepEqual(none.completion.values, []);
    });

    it("refuses unknown prompts and resources with MCP errors, and denied prompts as unknown", async () => {
      await assert.rejects(client.getPrompt({ name: "everything__resource-prompt", arguments: { resourceType: "Text", resourceId: "1" } }), (e: unknown) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
      await assert.rejects(client.readResource({ uri: "nowhere://x" }), (e: unknown) => e instanceof McpError && e.code === -32002);
    });

    it("forwards resources/updated to a subscribed client, and upstream log messages at its level with the server name", async () => {
      const updates: string[] = [];
      const logs: { logger?: string; level: string }[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => void updates.push(n.params.uri));
      client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void logs.push(n.params));
      // A second session that only wants errors: the same info messages must not reach it.
      const quiet = await connectInMemory(gateway);
      const quietLogs: unknown[] = [];
      quiet.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void quietLogs.push(n.params));
      await quiet.setLoggingLevel("error");
      await client.setLoggingLevel("info");
      await client.subscribeResource({ uri: STATIC_DOC });
      // server-everything logs each subscribe at info level, then sends updates once its toggle tool is on.
      await eventually(() => logs.some((l) => l.logger === "everything" && l.level === "info"));
      const toggled = await client.callTool({ name: "call_tool", arguments: { name: "everything__toggle-subscriber-updates", arguments: {} } });
      assert.notEqual(toggled.isError, true, textOf(toggled));
      await eventually(() => updates.includes(STATIC_DOC));
      await quiet.ping(); // everything sent before this answer has reached the quiet session
      assert.deepEqual(quietLogs, []);
      await quiet.close();
      await client.unsubscribeResource({ uri: STATIC_DOC });
    });

    it("sends list_changed for resources and prompts when the server goes down, and lists them again when it is back", async () => {
      const changed: string[] = [];
      client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => void changed.push("resources"));
      client.setNotificationHandler(PromptListChangedNotificationSchema, async () => void changed.push("prompts"));
      const upstream = gateway.upstreams.get("everything")!;
      process.kill(upstream.pid!, "SIGKILL");
      await eventually(() => changed.includes("resources") && changed.includes("prompts"));
      assert.deepEqual((await client.listPrompts()).prompts, [], "a server that is down offers nothing");
      await eventually(() => upstream.state === "ready", 300, 100);
      assert.ok((await client.listResources()).resources.some((r) => r.uri === STATIC_DOC));
    });
  });
});

describe("upstream resources and prompts through the gateway (Streamable HTTP upstream)", () => {
  let everything: ChildProcess;
  let gateway: Gateway;
  let client: Client;

  before(async () => {
    const port = await freePort();
    everything = spawn(process.execPath, [serverScript("server-everything"), "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
    await waitForLine(everything, /listening on port/);
    // As `toolsearch mcp` does: the gateway answers at once, and the first list waits for the server's first start.
    gateway = await Gateway.start({ config: parseGatewayConfig({ mcpServers: { remote: { url: `http://127.0.0.1:${port}/mcp` } } }), log: () => undefined, waitForUpstreams: false });
    client = await connectInMemory(gateway);
  });
  after(async () => {
    await client?.close();
    await gateway?.close();
    everything?.kill("SIGTERM");
  });

  it("lists (waiting for the first start), reads and gets from an HTTP upstream", async () => {
    assert.ok((await client.listResources()).resources.some((r) => r.uri === STATIC_DOC));
    const read = await client.readResource({ uri: STATIC_DOC });
    assert.ok(((read.contents[0] as { text?: string }).text ?? "").length > 0);
    const prompt = await client.getPrompt({ name: "remote__simple-prompt" });
    assert.ok(prompt.messages.length >= 1);
  });
});

describe("upstream log messages and refusals through the gateway keep secrets out", () => {
  it("masks a configured secret in a forwarded log message", async () => {
    const secret = "s3cr3t-value-42";
    const config = parseGatewayConfig({ mcpServers: { conf: { command: process.execPath, args: [CONFORMANCE_SERVER], env: { API_TOKEN: "${CONF_TOKEN}" } } } }, "test", { CONF_TOKEN: secret });
    const gateway = await Gateway.start({ config, environment: { CONF_TOKEN: secret }, log: () => undefined });
    const client = await connectInMemory(gateway);
    try {
      const logs: string[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void logs.push(String(n.params.data)));
      // The conformance upstream logs each subscription with its URI; this one routes through its template.
      await client.subscribeResource({ uri: `test://template/${secret}/data` });
      await eventually(() => logs.length > 0);
      assert.deepEqual(logs, ["subscribed test://template/***/data"]);
    } finally {
      await client.close();
      await gateway.close();
    }
  });
});
