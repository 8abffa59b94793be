import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InputValidator } from "../../src/execution/validate-input.js";
import { runTool } from "../../src/execution/run-tool.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { handleDescribeTool } from "../../src/metatools/describe-tool.js";
import { buildToolDirectory } from "../../src/metatools/directory.js";
import { handleToolSearch, MAX_SEARCH_RESULTS, toolSearchDefinition } from "../../src/metatools/tool-search.js";

const CATALOG = new URL("../fixtures/catalogs/enterprise.json", import.meta.url).pathname;

describe("tool_search", () => {
  it("answers with tool_reference blocks, 5 by default and at most 10", async () => {
    const index = await ToolIndex.fromFile(CATALOG);
    const result = await handleToolSearch(index, { query: "khach hang customer" });
    assert.equal(result.isError, false);
    assert.ok(Array.isArray(result.content));
    assert.ok(result.content.length >= 1 && result.content.length <= 5);
    assert.equal((result.content as { type: string }[])[0].type, "tool_reference");
    const tooMany = await handleToolSearch(index, { query: "x", limit: MAX_SEARCH_RESULTS + 1 });
    assert.equal(tooMany.isError, true);
    assert.match(String(tooMany.content), /from 1 to 10/);
  });

  it("leaves excluded tools out and explains a bad pattern", async () => {
    const index = await ToolIndex.fromFile(CATALOG);
    const all = await handleToolSearch(index, { query: "khach hang san pham" });
    const first = (all.content as { tool_name: string }[])[0].tool_name;
    const result = await handleToolSearch(index, { query: "khach hang san pham" }, { exclude: [first] });
    assert.ok(Array.isArray(result.content) && result.content.length > 0);
    assert.ok(!(result.content as { tool_name: string }[]).some((b) => b.tool_name === first));
    const bad = await handleToolSearch(index, { pattern: "(?<=x)y" }, { engine: "regex" });
    assert.equal(bad.isError, true);
    assert.match(String(bad.content), /look-behind/);
  });

  it("loads exactly the tools a select: query names, in order, with close names for unknown ones", async () => {
    const index = await ToolIndex.fromFile(CATALOG);
    const result = await handleToolSearch(index, { query: "select:get_stock_level, process_refund,get_stok_level,get_stock_level" });
    const blocks = result.content as { type: string; tool_name?: string; text?: string }[];
    assert.deepEqual(blocks.filter((b) => b.type === "tool_reference").map((b) => b.tool_name), ["get_stock_level", "process_refund"]);
    assert.match(blocks.at(-1)!.text!, /No tool is named "get_stok_level"; close names: get_stock_level/);
    // The engine does not matter: select is read before any search runs.
    const regex = await handleToolSearch(index, { pattern: "SELECT:process_refund" }, { engine: "regex" });
    assert.deepEqual(regex.content, [{ type: "tool_reference", tool_name: "process_refund" }]);
    const none = await handleToolSearch(index, { query: "select:no_such_tool" });
    assert.equal(typeof none.content, "string");
    assert.match(String(none.content), /No tool is named "no_such_tool"/);
    const empty = await handleToolSearch(index, { query: "select: , " });
    assert.equal(empty.isError, true);
  });

  it("has a small definition: query or pattern, and a limit", () => {
    assert.deepEqual(toolSearchDefinition().input_schema.required, ["query"]);
    assert.deepEqual(toolSearchDefinition({ engine: "regex" }).input_schema.required, ["pattern"]);
    assert.ok(JSON.stringify(toolSearchDefinition()).length < 1200);
  });
});

describe("describe_tool and the directory", () => {
  it("returns the full definition and a reference, or suggestions", async () => {
    const index = await ToolIndex.fromFile(CATALOG);
    const ok = await handleDescribeTool(index, { tool_name: "trigger_reorder" });
    assert.equal(ok.isError, false);
    const [textBlock, ref] = ok.content as { type: string; text?: string; tool_name?: string }[];
    assert.deepEqual(JSON.parse(textBlock.text!).input_schema, index.describe("trigger_reorder")!.input_schema);
    assert.deepEqual(ref, { type: "tool_reference", tool_name: "trigger_reorder" });
    const unknown = await handleDescribeTool(index, { tool_name: "trigger_reoder" });
    assert.equal(unknown.isError, true);
    assert.match(String(unknown.content), /Did you mean: trigger_reorder/);
  });

  it("is byte-identical for the same catalog in any order, grouped by category, uncategorized last", async () => {
    const index = await ToolIndex.fromFile(CATALOG);
    const tools = index.list();
    const a = buildToolDirectory(tools);
    const b = buildToolDirectory([...tools].reverse());
    assert.equal(a, b);
    assert.deepEqual([...a.matchAll(/^\[(.+)\]$/gm)].map((m) => m[1]), ["Analytics", "CRM", "DevOps", "Finance", "HR", "Inventory"]);
    const withLoose = await ToolIndex.fromTools([...tools.map((t) => ({ ...t.definition, category: t.category })), { name: "aaa_loose", description: "No category. Second sentence.", input_schema: { type: "object" } }]);
    const text = buildToolDirectory(withLoose.list());
    assert.match(text, /\[Other\]\n- aaa_loose: No category\.$/);
  });
});

describe("input validation and execution", () => {
  const schema = {
    type: "object",
    properties: {
      sku: { type: "string" },
      quantity: { type: "integer", minimum: 1 },
      urgent: { type: "boolean", default: false },
      mode: { type: "string", enum: ["air", "sea"] },
      address: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
    required: ["sku", "quantity"],
    additionalProperties: false,
  };

  it("coerces obvious slips, fills defaults and leaves the original alone", () => {
    const original = { sku: "A", quantity: "3", urgent: "true" };
    const check = new InputValidator().validate("t", schema, original);
    assert.deepEqual(check, { ok: true, input: { sku: "A", quantity: 3, urgent: true } });
    assert.equal(original.quantity, "3");
  });

  it("says exactly what to fix", () => {
    const check = new InputValidator().validate("t", schema, { quantity: 0, mode: "rail", address: {}, color: "red" });
    assert.equal(check.ok, false);
    if (check.ok) return;
    assert.ok(check.problems.includes('missing required property "sku"'));
    assert.ok(check.problems.includes('"quantity" must be >= 1 (got number 0)'));
    assert.ok(check.problems.includes('"mode" must be one of "air", "sea" (got string "rail")'));
    assert.ok(check.problems.includes('missing required property "address.city"'));
    assert.ok(check.problems.includes('unexpected property "color": remove it'));
    assert.match(check.message, /Expected parameters: sku \(string, required\), quantity \(integer, required\)/);
    const notObject = new InputValidator().validate("t", schema, "sku=A");
    assert.equal(notObject.ok, false);
  });

  it("never throws: unknown tools, missing handlers and bad schemas are results", async () => {
    const index = await ToolIndex.fromFile(CATALOG);
    const unknown = await runTool({ name: "get_stok_level", input: {} }, index, {});
    assert.equal(unknown.status, "unknown_tool");
    assert.match(String(unknown.content), /Did you mean: get_stock_level/);
    const noHandler = await runTool({ name: "get_stock_level", input: { sku: "A" } }, index, {});
    assert.equal(noHandler.status, "no_handler");
    const ok = await runTool({ name: "get_stock_level", input: { sku: "A" } }, index, new Map([["get_stock_level", () => [{ type: "text", text: "12" }]]]));
    assert.deepEqual(ok.content, [{ type: "text", text: "12" }]);
    const refSchema = await ToolIndex.fromTools([{ name: "r", input_schema: { type: "object", properties: { a: { $ref: "other.json#/x" } } } }]);
    const passed = await runTool({ name: "r", input: { a: 1 } }, refSchema, { r: (input) => input });
    assert.equal(passed.status, "ok");
  });
});
