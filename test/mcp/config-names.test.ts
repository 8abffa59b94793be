/** Gateway configuration rules and namespaced tool names. */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ToolsearchError } from "../../src/errors.js";
import { loadGatewayConfig, parseGatewayConfig } from "../../src/mcp/config.js";
import { namespacedName } from "../../src/mcp/names.js";
import { makeTempDir } from "../helpers/temp-dir.js";

function refusal(value: unknown): ToolsearchError {
  try {
    parseGatewayConfig(value, "mcp.json");
  } catch (error) {
    assert.ok(error instanceof ToolsearchError);
    assert.equal(error.code, "config_invalid");
    return error;
  }
  assert.fail("expected the configuration to be refused");
}

describe("gateway configuration", () => {
  it("accepts stdio and HTTP servers in the Claude Desktop shape and drops disabled ones", () => {
    const config = parseGatewayConfig({
      mcpServers: {
        fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], env: { DEBUG: "1" } },
        remote: { type: "http", url: "http://localhost:3001/mcp", headers: { Authorization: "Bearer x" } },
        off: { command: "x", disabled: true },
      },
    });
    assert.deepEqual(Object.keys(config.mcpServers), ["fs", "remote"]);
    assert.deepEqual(config.mcpServers.remote, { url: "http://localhost:3001/mcp", headers: { Authorization: "Bearer x" } });
  });

  it("reads the example configuration of the README", () => {
    const config = loadGatewayConfig(join(import.meta.dirname, "..", "..", "examples", "mcp", "upstreams.json"));
    assert.deepEqual(Object.keys(config.mcpServers), ["filesystem", "memory", "everything"]);
  });

  it("names the server and the field of every problem", () => {
    const error = refusal({
      mcpServers: {
        fs: { command: "npx", args: ["ok", 3] },
        web: { url: "not a url", headers: { A: 1 } },
        both: { command: "x", url: "http://x" },
        none: { args: [] },
        typo: { command: "x", arg: [] },
      },
    });
    assert.match(error.message, /server "fs": field "args\[1\]" must be string/);
    assert.match(error.message, /server "web": field "headers\.A" must be string/);
    assert.match(error.message, /server "web": field "url" must be an absolute URL/);
    assert.match(error.message, /server "both": has both "command" and "url"/);
    assert.match(error.message, /server "none": needs either "command"/);
    assert.match(error.message, /server "typo": field "arg" is not a known field/);
    assert.equal(error.problems.length, 6);
  });

  it("refuses a file without mcpServers, and broken JSON, naming the file", () => {
    assert.match(refusal({ servers: {} }).message, /^mcp\.json: expected an object \{"mcpServers"/);
    const dir = makeTempDir("toolsearch-config-");
    writeFileSync(join(dir, "bad.json"), "{nope");
    assert.throws(() => loadGatewayConfig(join(dir, "bad.json")), (e: ToolsearchError) => e.code === "file_parse" && e.message.includes("bad.json"));
  });
});

describe("namespaced names", () => {
  it("joins server and tool with __ when both are valid", () => {
    assert.equal(namespacedName("fs", "read_file"), "fs__read_file");
    assert.equal(namespacedName("everything", "get-sum"), "everything__get-sum");
  });

  it("sanitizes invalid characters and keeps distinct tools distinct", () => {
    const dotted = namespacedName("api.v2", "orders.list");
    const underscored = namespacedName("api_v2", "orders_list");
    assert.match(dotted, /^api_v2__orders_list_[0-9a-f]{8}$/);
    assert.equal(underscored, "api_v2__orders_list");
    assert.equal(namespacedName("api.v2", "orders.list"), dotted, "stable across calls");
  });

  it("shortens long names to 64 characters with a hash", () => {
    const long = namespacedName("a-very-long-server-name", "x".repeat(80));
    assert.equal(long.length, 64);
    assert.match(long, /^[a-zA-Z0-9_-]{1,64}$/);
    assert.notEqual(long, namespacedName("a-very-long-server-name", `${"x".repeat(79)}y`));
  });
});
