/**
 * The gateway in front of a server whose tools carry schemas from the wild: a draft-04 bound inside `items` is
 * searchable and callable (and enforced), a schema nested 400 levels deep is skipped with a log line naming
 * `schema_too_large`, and the server's other tools are unaffected.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { parseGatewayConfig } from "../../src/mcp/config.js";
import { Gateway } from "../../src/mcp/gateway.js";
import { connectInMemory, FIXTURE_SERVER, foundNames, textOf } from "./helpers.js";

describe("gateway and upstream schemas of every draft", () => {
  let gateway: Gateway;
  let client: Client;
  const logs: string[] = [];

  before(async () => {
    const config = parseGatewayConfig({ mcpServers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_SCHEMAS: "1" } } } });
    gateway = await Gateway.start({ config, upstream: { callTimeoutMs: 5000, pingTimeoutMs: 5000 }, log: (line) => logs.push(line) });
    client = await connectInMemory(gateway);
  });
  after(async () => {
    await client.close();
    await gateway.close();
  });

  it("finds the tool with draft-04 bounds", async () => {
    const names = foundNames(await client.callTool({ name: "search_tools", arguments: { query: "read pages of a pdf" } }));
    assert.equal(names[0], "fixture__read_pdf_pages");
  });

  it("enforces the draft-04 bound on call_tool", async () => {
    const result = await client.callTool({ name: "call_tool", arguments: { name: "fixture__read_pdf_pages", arguments: { path: "a.pdf", pages: [0] } } });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /pages\[0\]" must be > 0/);
  });

  it("skips the over-deep schema with a reason and its code, keeping every other tool", () => {
    assert.equal(gateway.index.get("fixture__nested_forever"), undefined);
    const line = logs.find((l) => l.includes("nested_forever"));
    assert.match(line ?? "", /skipped fixture\/nested_forever \(schema_too_large\): .*nests deeper than the limit/);
    assert.equal(gateway.index.names().filter((n) => n.startsWith("fixture__")).length, 7);
  });
});
