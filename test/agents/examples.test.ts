/** The agent examples run without an API key: they print the request they would send and exit 0. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

function runExample(name: string) {
  const file = fileURLToPath(new URL(`../../examples/${name}.ts`, import.meta.url));
  const env = { ...process.env };
  delete env.ANTHROPIC_API_KEY;
  delete env.OPENAI_API_KEY;
  delete env.AI_GATEWAY_API_KEY;
  return spawnSync(process.execPath, ["--import", "tsx", file], { encoding: "utf8", env });
}

/** The first JSON object printed: the request. */
function printedRequest(stdout: string): Record<string, unknown> {
  const start = stdout.indexOf("{");
  const end = stdout.indexOf("\n}\n", start);
  return JSON.parse(stdout.slice(start, end + 2));
}

describe("examples without ANTHROPIC_API_KEY", () => {
  it("help-center prints a search request with the knowledge tools", () => {
    const result = runExample("help-center");
    assert.equal(result.status, 0, result.stderr);
    const request = printedRequest(result.stdout);
    const tools = request.tools as { name: string; defer_loading?: boolean }[];
    assert.deepEqual(tools.slice(0, 3).map((t) => t.name), ["tool_search", "search_docs", "read_doc"]);
    assert.ok(tools.slice(3).every((t) => t.defer_loading === true));
    assert.match(result.stdout, /"type": "search_result"/);
  });

  it("enterprise-directory prints a directory request", () => {
    const result = runExample("enterprise-directory");
    assert.equal(result.status, 0, result.stderr);
    const request = printedRequest(result.stdout);
    assert.match(JSON.stringify(request.system), /TOOL DIRECTORY \(8 tools\)/);
    assert.match(result.stdout, /"tool_name": "get_customer_profile"/);
  });

  it("openai-tool-search prints a native tool_search request with namespaces and a tool_search_output", () => {
    const result = runExample("openai-tool-search");
    assert.equal(result.status, 0, result.stderr);
    const request = printedRequest(result.stdout);
    const tools = request.tools as { type: string; execution?: string; name?: string }[];
    assert.deepEqual([tools[0].type, tools[0].execution], ["tool_search", "client"]);
    assert.ok(tools.slice(1).every((t) => t.type === "namespace"));
    assert.match(result.stdout, /"type": "tool_search_output"[\s\S]*"name": "get_forecast"/);
  });

  it("ai-sdk-tool-search shows only the search tool up front and our ranking", () => {
    const result = runExample("ai-sdk-tool-search");
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /"name": "search"/);
    assert.doesNotMatch(result.stdout, /"name": "get_forecast"/);
    assert.match(result.stdout, /ranks: get_forecast\n/);
    assert.match(result.stdout, /select:get_forecast,get_wether"}\) ranks: get_forecast, get_weather/);
  });

  it("openai-agents-tool-search lists deferred, namespaced tools and what a search loads", () => {
    const result = runExample("openai-agents-tool-search");
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /weather\.get_forecast {2}\(deferred\)/);
    assert.match(result.stdout, /would load: get_forecast/);
  });
});
