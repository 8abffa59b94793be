/**
 * The bundled MCP SDK that `npm run build` writes (scripts/bundle-sdk.ts) works as the SDK does: a server made with the
 * bundled `Server` answers a real SDK client over stdio, and the bundled `Client` drives the real fixture server as a
 * child process. The three entry points share one copy of the SDK's classes: an error from the client side is an
 * instance of the `McpError` the server side exports, which is what the gateway's `instanceof` checks rely on.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { bundleSdk } from "../../scripts/bundle-sdk.js";
import type * as ServerSide from "../../src/mcp/sdk.js";
import type * as ClientSide from "../../src/mcp/sdk-client.js";
import { FIXTURE_SERVER, ROOT, textOf } from "./helpers.js";

describe("the bundled MCP SDK", () => {
  // Inside the checkout, so that the bundle's external imports (ajv) resolve from its node_modules as in dist/.
  const cache = join(ROOT, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const out = mkdtempSync(join(cache, "toolsearch-sdk-bundle-"));
  const load = async <T>(entry: string) => (await import(pathToFileURL(join(out, `${entry}.js`)).href)) as T;

  before(async () => {
    const files = (await bundleSdk(out)).map(([file]) => file.split("/").pop());
    for (const entry of ["sdk.js", "sdk-client.js", "sdk-http.js"]) assert.ok(files.includes(entry), files.join(", "));
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it("serves over stdio to a real SDK client", async () => {
    const script = `
      const sdk = await import(${JSON.stringify(pathToFileURL(join(out, "sdk.js")).href)});
      const server = new sdk.Server({ name: "bundled", version: "1.0.0" }, { capabilities: { tools: {} } });
      server.setRequestHandler(sdk.ListToolsRequestSchema, async () => ({ tools: [{ name: "shout", description: "Upper-case a text.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] }));
      server.setRequestHandler(sdk.CallToolRequestSchema, async (request) => ({ content: [{ type: "text", text: String(request.params.arguments?.text).toUpperCase() }] }));
      await server.connect(new sdk.StdioServerTransport());`;
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: ["--input-type=module", "-e", script], stderr: "inherit" }));
    try {
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ["shout"]);
      assert.equal(textOf(await client.callTool({ name: "shout", arguments: { text: "bundled" } })), "BUNDLED");
    } finally {
      await client.close();
    }
  });

  it("drives a real server as a child process, with the same McpError as the server side", async () => {
    const server = await load<typeof ServerSide>("sdk");
    const sdk = await load<typeof ClientSide>("sdk-client");
    const client = new sdk.Client({ name: "test", version: "1.0.0" });
    await client.connect(new sdk.StdioClientTransport({ command: process.execPath, args: [FIXTURE_SERVER], env: sdk.getDefaultEnvironment(), stderr: "ignore" }));
    try {
      assert.ok((await client.listTools()).tools.some((t) => t.name === "echo_text"));
      assert.equal(textOf(await client.callTool({ name: "echo_text", arguments: { text: "through the bundle" } })), "through the bundle");
      await assert.rejects(client.request({ method: "no/such_method", params: {} }, server.ListToolsRequestSchema as never), (error: unknown) => error instanceof server.McpError);
    } finally {
      await client.close();
    }
    assert.equal(typeof (await load<{ StreamableHTTPServerTransport: unknown }>("sdk-http")).StreamableHTTPServerTransport, "function");
  });
});
