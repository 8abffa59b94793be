/** The agent examples run without an API key: they print the request they would send and exit 0. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

function runExample(name: string) {
  const file = fileURLToPath(new URL(`../../examples/${name}.ts`, import.meta.url));
  const env = { ...process.env };
  delete env.ANTHROPIC_API_KEY;
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
});
