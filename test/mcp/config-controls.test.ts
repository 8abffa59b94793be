/**
 * What a server block may add beyond command/url: `${VAR}` interpolation (a missing variable refuses the file naming
 * server, field and variable, and no value is ever shown), allow/deny globs, alwaysLoad, and the configuration hash
 * that decides whether a manifest still holds.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolsearchError } from "../../src/errors.js";
import { configHash, parseGatewayConfig } from "../../src/mcp/config.js";
import { toolFilter } from "../../src/mcp/tool-filter.js";
import { redactor, resolveServerConfig } from "../../src/mcp/variables.js";

const SECRET = "tok_9f8e7d6c5b4a";

function refusal(value: unknown, environment: Record<string, string | undefined>): ToolsearchError {
  try {
    parseGatewayConfig(value, "mcp.json", environment);
  } catch (error) {
    assert.ok(error instanceof ToolsearchError);
    return error;
  }
  assert.fail("the configuration was accepted");
}

describe("${VAR} interpolation", () => {
  it("fills command, args, env, url and headers from the environment, with defaults", () => {
    const environment = { BIN: "/opt/bin/server", ROOT: "/data", TOKEN: SECRET, EMPTY: "" };
    const stdio = resolveServerConfig({ command: "${BIN}", args: ["--root", "${ROOT}/files", "${MODE:-fast}", "${EMPTY:-fallback}"], env: { API_TOKEN: "${TOKEN}" } }, environment);
    assert.deepEqual(stdio.config, { command: "/opt/bin/server", args: ["--root", "/data/files", "fast", "fallback"], env: { API_TOKEN: SECRET } });
    assert.deepEqual(stdio.missing, []);
    const http = resolveServerConfig({ url: "${BASE:-http://localhost:3001}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } }, environment);
    assert.deepEqual(http.config, { url: "http://localhost:3001/mcp", headers: { Authorization: `Bearer ${SECRET}` } });
    assert.ok(http.secrets.includes(SECRET));
  });

  it("refuses a missing variable naming the server, the field and the variable, never a value", () => {
    const error = refusal({
      mcpServers: {
        github: { command: "gh-mcp", env: { GITHUB_TOKEN: "${GITHUB_TOKEN}", OTHER: SECRET } },
        remote: { url: "https://example.com/mcp", headers: { Authorization: "Bearer ${REMOTE_TOKEN}" } },
      },
    }, { TOKEN: SECRET });
    assert.equal(error.code, "config_invalid");
    assert.match(error.message, /server "github": field "env\.GITHUB_TOKEN" uses \$\{GITHUB_TOKEN\}, which is not set/);
    assert.match(error.message, /server "remote": field "headers\.Authorization" uses \$\{REMOTE_TOKEN\}/);
    assert.ok(!error.message.includes(SECRET));
  });

  it("checks an interpolated URL without showing it", () => {
    const error = refusal({ mcpServers: { web: { url: "${URL}" } } }, { URL: `not a url ${SECRET}` });
    assert.match(error.message, /server "web": field "url" must be an absolute URL/);
    assert.ok(!error.message.includes(SECRET));
    assert.doesNotThrow(() => parseGatewayConfig({ mcpServers: { web: { url: "${URL}" } } }, "mcp.json", { URL: "http://127.0.0.1:9/mcp" }));
  });

  it("masks secret values, longest first, and leaves short ones alone", () => {
    const mask = redactor([SECRET, `Bearer ${SECRET}`, "on"]);
    assert.equal(mask(`401 for Bearer ${SECRET}; retried with ${SECRET}; debug on`), "401 for ***; retried with ***; debug on");
  });
});

describe("tools allow/deny and alwaysLoad", () => {
  it("keeps a tool when some allow glob matches and no deny glob does", () => {
    const keep = toolFilter({ allow: ["read_*", "list_?irectory"], deny: ["*_secret*"] });
    assert.deepEqual(["read_file", "read_secret_file", "list_directory", "write_file"].filter(keep), ["read_file", "list_directory"]);
    assert.equal(toolFilter(undefined)("anything"), true);
    assert.equal(toolFilter({ deny: ["write_*"] })("write_file"), false);
  });

  it("treats everything but * and ? literally", () => {
    assert.ok(toolFilter({ allow: ["weather.forecast"] })("weather.forecast"));
    assert.ok(!toolFilter({ allow: ["weather.forecast"] })("weatherXforecast"));
    assert.ok(toolFilter({ allow: ["a+(b)"] })("a+(b)"));
  });

  it("validates the fields and names them", () => {
    const error = refusal({ mcpServers: { fs: { command: "fs", tools: { allow: "read_*", block: [] }, alwaysLoad: [1] } } }, {});
    assert.match(error.message, /server "fs": field "tools\.allow" must be array/);
    assert.match(error.message, /server "fs": field "tools\.block" is not a known field/);
    assert.match(error.message, /server "fs": field "alwaysLoad\[0\]" must be string/);
  });
});

describe("configuration hash", () => {
  const block = { command: "node", args: ["server.js", "--token", "${TOKEN}"], env: { A: "1", B: "2" } };

  it("ignores key order, tools and alwaysLoad, and the variables' values", () => {
    const reordered = { env: { B: "2", A: "1" }, args: block.args, command: "node", tools: { deny: ["x"] }, alwaysLoad: ["y"] };
    assert.equal(configHash(reordered), configHash(block));
  });

  it("changes with anything that decides what the server offers", () => {
    assert.notEqual(configHash({ ...block, args: ["server.js", "--token", "${OTHER}"] }), configHash(block));
    assert.notEqual(configHash({ ...block, env: { A: "1", B: "3" } }), configHash(block));
    assert.notEqual(configHash({ url: "http://a/mcp" }), configHash({ url: "http://b/mcp" }));
  });
});

describe("oauth blocks with a private key (private_key_jwt)", () => {
  const PEM = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg-not-real\n-----END PRIVATE KEY-----\n";
  const server = (oauth: Record<string, unknown>) => ({ mcpServers: { crm: { url: "https://crm.example.com/mcp", oauth: { grant: "client_credentials", clientId: "crm-bot", ...oauth } } } });

  it("takes the key from ${VAR} and masks it like a secret", () => {
    const resolved = resolveServerConfig({ url: "https://crm.example.com/mcp", oauth: { grant: "client_credentials", clientId: "crm-bot", privateKey: "${CRM_KEY}", signingAlgorithm: "ES256" } }, { CRM_KEY: PEM });
    assert.equal("oauth" in resolved.config && resolved.config.oauth?.privateKey, PEM);
    assert.ok(resolved.secrets.includes(PEM));
    assert.doesNotThrow(() => parseGatewayConfig(server({ privateKeyFile: "/etc/toolsearch/crm.pem" }), "mcp.json", {}));
  });

  it("a machine account needs one way to authenticate, and only one", () => {
    const none = refusal(server({}), {});
    assert.match(none.message, /"oauth" needs clientSecret, privateKey or privateKeyFile/);
    assert.equal(none.problems.length, 1, JSON.stringify(none.problems));
    const both = refusal(server({ clientSecret: SECRET, privateKey: PEM }), {});
    assert.match(both.message, /"oauth" takes one of clientSecret, privateKey and privateKeyFile/);
    assert.ok(!both.message.includes(SECRET) && !both.message.includes("not-real"));
    assert.match(refusal(server({ privateKey: PEM, signingAlgorithm: "HS256" }), {}).message, /signingAlgorithm" must be one of/);
  });
});
