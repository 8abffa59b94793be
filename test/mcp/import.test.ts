/**
 * `toolsearch mcp import`: each client's own configuration shape (fixture files written as those clients document
 * them) becomes a gateway configuration the gateway accepts; servers that cannot or must not move (SSE, disabled,
 * toolsearch itself) are left out with a note; default locations per OS; the CLI writes the file and prints the entry.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { inProcessCli } from "../helpers/cli.js";
import { parseGatewayConfig, type StdioServerConfig } from "../../src/mcp/config.js";
import { defaultClientFiles, importClientConfig, isGateway, parseJsonc } from "../../src/mcp/import.js";
import { ROOT } from "./helpers.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const FIXTURES = join(ROOT, "test", "fixtures", "mcp", "clients");
const context = { home: "/home/me", project: "/work/app" };
const read = (file: string) => readFileSync(join(FIXTURES, file), "utf8");

describe("mcp import: client formats", () => {
  it("Claude Desktop: mcpServers with command, args, env; skips toolsearch itself", () => {
    const result = importClientConfig("claude-desktop", read("claude_desktop_config.json"), context);
    assert.deepEqual(Object.keys(result.config.mcpServers), ["filesystem", "github"]);
    assert.deepEqual(result.config.mcpServers.github, {
      command: "docker",
      args: ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_literal_token_in_the_client_file" },
    });
    assert.ok(result.notes.some((n) => /skipped "toolsearch": it is toolsearch itself/.test(n)));
  });

  it("Claude Code: user servers, then the current project's (which win); SSE left out; ${VAR} kept as is", () => {
    const result = importClientConfig("claude-code", read("claude.json"), context);
    assert.deepEqual(Object.keys(result.config.mcpServers).sort(), ["api", "memory", "notion"]);
    assert.deepEqual(result.config.mcpServers.memory, { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], env: { MEMORY_FILE_PATH: "/work/app/memory.jsonl" } });
    assert.deepEqual(result.config.mcpServers.api, { url: "${API_BASE_URL:-https://api.example.com}/mcp", headers: { Authorization: "Bearer ${API_KEY}" } });
    assert.ok(result.notes.some((n) => /skipped "asana": it uses the SSE transport/.test(n)));
    assert.ok(!("other-only" in result.config.mcpServers), "another project's servers stay out");
  });

  it("Cursor: ${env:NAME}, ${userHome} and ${workspaceFolder} become the gateway's terms; envFile is noted", () => {
    const result = importClientConfig("cursor", read("cursor-mcp.json"), context);
    assert.deepEqual(Object.keys(result.config.mcpServers), ["playwright", "userjot", "local-docs"]);
    assert.deepEqual(result.config.mcpServers.userjot, { url: "https://api.example.com/v1/mcp", headers: { Authorization: "Bearer ${USERJOT_API_TOKEN}" } });
    assert.deepEqual(result.config.mcpServers["local-docs"], { command: "node", args: ["/work/app/tools/docs-server.js", "--cache", "/home/me/.cache/docs"] });
    assert.ok(result.notes.some((n) => /"local-docs": its envFile is not read/.test(n)));
    assert.ok(result.notes.some((n) => /skipped "gateway": it is toolsearch itself/.test(n)));
  });

  it("VS Code: servers (JSONC), ${input:…} becomes a variable to set, SSE left out", () => {
    const result = importClientConfig("vscode", read("vscode-mcp.json"), context);
    assert.deepEqual(Object.keys(result.config.mcpServers), ["perplexity", "fetch", "github"]);
    assert.deepEqual((result.config.mcpServers.perplexity as StdioServerConfig).env, { PERPLEXITY_API_KEY: "${PERPLEXITY_KEY}" });
    assert.deepEqual(result.variables, ["PERPLEXITY_KEY"]);
    assert.ok(result.notes.some((n) => /skipped "legacy": it uses the SSE transport/.test(n)));
    // VS Code settings.json keeps the same map under "mcp".
    const settings = importClientConfig("vscode", JSON.stringify({ "editor.fontSize": 13, mcp: { servers: { fetch: { type: "stdio", command: "uvx", args: ["mcp-server-fetch"] } } } }), context);
    assert.deepEqual(settings.config.mcpServers, { fetch: { command: "uvx", args: ["mcp-server-fetch"] } });
  });

  it("every converted configuration is one the gateway accepts once its variables are set", () => {
    const environment = { API_KEY: "k", USERJOT_API_TOKEN: "t", PERPLEXITY_KEY: "p", GITHUB_TOKEN: "g" };
    for (const [client, file] of [["claude-desktop", "claude_desktop_config.json"], ["claude-code", "claude.json"], ["cursor", "cursor-mcp.json"], ["vscode", "vscode-mcp.json"]] as const) {
      const { config } = importClientConfig(client, read(file), context);
      assert.doesNotThrow(() => parseGatewayConfig(config, file, environment), client);
    }
  });

  it("a file without the client's server map is refused, naming the file and the shape", () => {
    assert.throws(() => importClientConfig("vscode", `{"mcpServers": {}}`, context, "mcp.json"), /mcp\.json: no MCP servers found: a vscode configuration has \{"servers"/);
    assert.throws(() => parseJsonc("{ broken", "x.json"), /x\.json: not valid JSON/);
  });

  it("recognises toolsearch's own gateway in the usual launch forms", () => {
    assert.ok(isGateway("toolsearch", ["mcp", "--config", "a.json"]));
    assert.ok(isGateway("npx", ["-y", "toolsearch@0.1.0", "mcp"]));
    assert.ok(isGateway("node", ["/opt/toolsearch/dist/cli/main.js", "mcp"]));
    assert.ok(!isGateway("npx", ["-y", "@modelcontextprotocol/server-memory"]));
    assert.ok(!isGateway("toolsearch-lookalike", ["serve"]));
  });
});

describe("mcp import: default locations", () => {
  const env = {};
  it("Claude Desktop per OS", () => {
    assert.deepEqual(defaultClientFiles("claude-desktop", { ...context, platform: "darwin", env }), ["/home/me/Library/Application Support/Claude/claude_desktop_config.json"]);
    assert.deepEqual(defaultClientFiles("claude-desktop", { home: "C:\\Users\\me", project: "C:\\app", platform: "win32", env: { APPDATA: "C:\\Users\\me\\AppData\\Roaming" } }), ["C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json"]);
    assert.deepEqual(defaultClientFiles("claude-desktop", { ...context, platform: "linux", env: { XDG_CONFIG_HOME: "/xdg" } }), ["/xdg/Claude/claude_desktop_config.json"]);
  });
  it("Claude Code, Cursor and VS Code: the user's file and the project's", () => {
    assert.deepEqual(defaultClientFiles("claude-code", { ...context, platform: "linux", env }), ["/work/app/.mcp.json", "/home/me/.claude.json"]);
    assert.deepEqual(defaultClientFiles("cursor", { ...context, platform: "darwin", env }), ["/home/me/.cursor/mcp.json", "/work/app/.cursor/mcp.json"]);
    assert.deepEqual(defaultClientFiles("vscode", { ...context, platform: "linux", env }), ["/home/me/.config/Code/User/mcp.json", "/work/app/.vscode/mcp.json"]);
    assert.deepEqual(defaultClientFiles("vscode", { ...context, platform: "darwin", env }), ["/home/me/Library/Application Support/Code/User/mcp.json", "/work/app/.vscode/mcp.json"]);
  });
});

/** The CLI, run in-process by a worker so that this file's stdout stays the test runner's. */
const runCli = inProcessCli();

describe("toolsearch mcp import (command line)", () => {
  const dir = makeTempDir("toolsearch-import-");
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("writes the gateway configuration and prints the entry that replaces the servers", async () => {
    const out = join(dir, "gateway.json");
    const { code, stdout } = await runCli(["mcp", "import", "--from", "vscode", "--file", join(FIXTURES, "vscode-mcp.json"), "--out", out]);
    assert.equal(code, 0);
    assert.deepEqual(Object.keys(JSON.parse(readFileSync(out, "utf8")).mcpServers), ["perplexity", "fetch", "github"]);
    assert.match(stdout, /Imported 3 servers/);
    assert.match(stdout, /Set these in the gateway's environment \(they were VS Code prompts\): PERPLEXITY_KEY/);
    const entry = JSON.parse(stdout.slice(stdout.indexOf("{", stdout.indexOf("this one entry"))));
    assert.deepEqual(entry, { servers: { toolsearch: { type: "stdio", command: "toolsearch", args: ["mcp", "--config", out] } } });
  });

  it("refuses to overwrite without --force, and an unknown client is a usage error", async () => {
    const out = join(dir, "existing.json");
    writeFileSync(out, "{}");
    const refused = await runCli(["mcp", "import", "--from", "cursor", "--file", join(FIXTURES, "cursor-mcp.json"), "--out", out]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /existing\.json exists; pass --force/);
    assert.equal(readFileSync(out, "utf8"), "{}");
    const forced = await runCli(["mcp", "import", "--from", "cursor", "--file", join(FIXTURES, "cursor-mcp.json"), "--out", out, "--force"]);
    assert.equal(forced.code, 0);
    const usage = await runCli(["mcp", "import", "--from", "zed", "--out", join(dir, "x.json")]);
    assert.equal(usage.code, 2);
    assert.ok(!existsSync(join(dir, "x.json")));
  });

  it("names the places it looked when the client has no configuration", async () => {
    const { code, stderr } = await runCli(["mcp", "import", "--from", "claude-desktop", "--file", join(dir, "nope.json"), "--out", join(dir, "y.json")]);
    assert.equal(code, 1);
    assert.match(stderr, /no claude-desktop configuration found; looked at: .*nope\.json/);
  });
});
