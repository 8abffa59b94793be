import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { contextReport } from "../../src/agents/context-size.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { runCli } from "../helpers/cli.js";

const CATALOG = new URL("../fixtures/catalogs/enterprise.json", import.meta.url).pathname;

describe("toolsearch context", () => {
  it("prints the SPEC §4 JSON shape", () => {
    const { code, stdout } = runCli(["context", "--catalog", CATALOG, "--json"]);
    assert.equal(code, 0);
    const report = JSON.parse(stdout);
    assert.deepEqual(Object.keys(report), ["tools", "full", "modes"]);
    assert.equal(report.tools, 8);
    assert.deepEqual(Object.keys(report.modes), ["search", "directory", "server"]);
    for (const size of [report.full, ...Object.values(report.modes)] as { chars: number; tokens: number }[]) {
      assert.deepEqual(Object.keys(size), ["chars", "tokens"]);
      assert.ok(size.chars > 0 && size.tokens > 0);
    }
  });

  it("prints a table for people and exits 1 for a missing file", () => {
    const text = runCli(["context", "--catalog", CATALOG]);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /full catalog/);
    assert.equal(runCli(["context", "--catalog", "/no/such/file.json"]).code, 1);
  });

  it("grows the full size with the catalog while the search setup stays the same", async () => {
    const many = Array.from({ length: 300 }, (_, i) => ({
      name: `tool_${i}`,
      description: `Does thing number ${i} with a fairly long description that a real catalog would have.`,
      input_schema: { type: "object", properties: { id: { type: "string", description: "The id of the thing" } }, required: ["id"] },
    }));
    const small = contextReport(await ToolIndex.fromTools(many.slice(0, 10)));
    const large = contextReport(await ToolIndex.fromTools(many));
    assert.equal(small.modes.search.chars, large.modes.search.chars);
    assert.ok(large.full.chars > 25 * small.full.chars);
    assert.ok(large.modes.search.chars < 0.05 * large.full.chars);
    assert.ok(large.modes.directory.chars < large.full.chars);
  });
});
