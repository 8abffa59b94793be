import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Tool } from "../../src/catalog/tool.js";
import { decodeSnapshot, encodeSnapshot, textSection } from "../../src/indexes/snapshot.js";
import { restoredTool, storedTool, ToolTable } from "../../src/indexes/tool-table.js";

function tool(name: string, description: string): Tool {
  const definition = { name, description, input_schema: { type: "object", properties: { city: { type: "string" } } } };
  return { name, description, inputSchema: definition.input_schema, shape: "anthropic", definition, extras: { category: "Weather" }, category: "Weather" } as Tool;
}

/** A table read from a snapshot's string section, as `ToolIndex.loadSnapshot` makes it. */
function savedTable(tools: Tool[]): ToolTable {
  const bytes = encodeSnapshot({ kind: "t", analyzer: { stopwords: true, stem: true, filters: 0 } }, { tools: tools.map((t) => JSON.stringify(storedTool(t))) });
  const saved = textSection(decodeSnapshot(bytes, "t").sections, "tools");
  return ToolTable.of(tools.map((t) => t.name), saved);
}

describe("ToolTable", () => {
  const tools = [tool("get_weather", "Current weather"), tool("get_forecast", "Forecast for a week")];

  it("gives back saved tools as they were stored, in catalog order", () => {
    const table = savedTable(tools);
    assert.equal(table.size, 2);
    assert.deepEqual([...table.keys()], ["get_weather", "get_forecast"]);
    assert.deepEqual(table.get("get_forecast"), tools[1]);
    assert.deepEqual([...table.values()], tools);
    assert.equal(table.get("missing"), undefined);
  });

  it("materialises a saved tool only when asked for it, once", () => {
    const table = savedTable(tools);
    const before = table.bytes;
    assert.ok(table.has("get_weather"));
    assert.equal(table.bytes, before, "has() parses nothing");
    const first = table.get("get_weather");
    assert.equal(table.get("get_weather"), first);
    assert.ok(table.bytes > before, "a materialised tool is counted");
  });

  it("writes stored texts without materialising, and they round-trip", () => {
    const table = savedTable(tools);
    const bytes = table.bytes;
    const texts = table.storedTexts();
    assert.equal(table.bytes, bytes);
    assert.deepEqual(texts.map((text, i) => restoredTool(tools[i].name, JSON.parse(text))), tools);
  });

  it("replaces and deletes like a map, keeping the order of the others", () => {
    const table = savedTable(tools);
    table.set("get_weather", tool("get_weather", "Now"));
    table.set("get_time", tool("get_time", "Clock"));
    assert.deepEqual([...table.keys()], ["get_weather", "get_forecast", "get_time"]);
    assert.equal(table.delete("get_forecast"), true);
    assert.equal(table.delete("get_forecast"), false);
    assert.deepEqual([...table.keys()], ["get_weather", "get_time"]);
    assert.equal(table.get("get_weather")!.description, "Now");
  });
});
