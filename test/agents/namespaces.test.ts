/** Grouping deferred tools into OpenAI namespaces. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { groupTools, namespaceName } from "../../src/agents/namespaces.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";

describe("namespaces", () => {
  it("groups by category in catalog order, leaves uncategorised tools loose, keeps names valid and distinct", async () => {
    const index = await ToolIndex.fromTools([
      { name: "a", description: "A.", input_schema: { type: "object" }, category: "Big Data / ETL" },
      { name: "big_data_etl", description: "B.", input_schema: { type: "object" } },
      { name: "c", description: "C.", input_schema: { type: "object" }, category: "big data etl" },
    ]);
    const { groups, loose } = groupTools(index.list(), { groupBy: "category" });
    assert.deepEqual(groups.map((g) => g.name), ["big_data_etl_tools", "big_data_etl_2"]);
    assert.deepEqual(loose.map((t) => t.name), ["big_data_etl"]);
    assert.equal(namespaceName("!!!"), "tools");
    const byServer = groupTools(index.list(), { groupBy: (t) => t.name.length > 1 ? "long" : undefined });
    assert.deepEqual(byServer.groups.map((g) => [g.name, g.tools.length]), [["long", 1]]);
  });
});
