import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadCatalogFile, normalizeTools } from "../../src/catalog/load.js";
import { ToolsearchError } from "../../src/errors.js";
import { tempFile } from "../helpers/files.js";

const anthropic = { name: "get_weather", description: "Current weather", input_schema: { type: "object", properties: { city: { type: "string" } } }, category: "Weather", cache_control: { type: "ephemeral" } };
const openAiChat = { type: "function", function: { name: "get_time", description: "Current time", parameters: { type: "object", properties: { tz: { type: "string" } } } } };
const openAiResponses = { type: "function", name: "send_email", description: "Send mail", parameters: { type: "object", properties: {} }, strict: true };
const mcp = { name: "read_file", title: "Read file", description: "Read a file", inputSchema: { type: "object", properties: { path: { type: "string" } } }, annotations: { readOnlyHint: true } };

function refusal(fn: () => unknown): ToolsearchError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ToolsearchError) return error;
    throw error;
  }
  assert.fail("expected the catalog to be refused");
}

describe("catalog files", () => {
  const tools = [anthropic, openAiChat, openAiResponses, mcp];

  it("reads a JSON array, {tools:[…]}, JSONL and YAML alike, with shapes mixed", () => {
    const yaml = tools.map((t) => `- ${JSON.stringify(t)}`).join("\n");
    const files = [
      tempFile("array.json", JSON.stringify(tools)),
      tempFile("list.json", JSON.stringify({ tools })),
      tempFile("lines.jsonl", tools.map((t) => JSON.stringify(t)).join("\n") + "\n\n"),
      tempFile("tools.yaml", yaml),
    ];
    for (const file of files) {
      const loaded = loadCatalogFile(file);
      assert.deepEqual(loaded.map((t) => [t.name, t.shape]), [
        ["get_weather", "anthropic"], ["get_time", "openai-chat"], ["send_email", "openai-responses"], ["read_file", "mcp"],
      ], file);
    }
  });

  it("keeps the Anthropic definition exactly as given and non-API fields apart", () => {
    const [weather, time, mail, read] = normalizeTools(tools);
    assert.deepEqual(weather.definition, { name: "get_weather", description: "Current weather", input_schema: anthropic.input_schema, cache_control: { type: "ephemeral" } });
    assert.equal(weather.category, "Weather");
    assert.deepEqual(weather.extras, { category: "Weather" });
    assert.deepEqual(time.definition, { name: "get_time", description: "Current time", input_schema: openAiChat.function.parameters });
    assert.deepEqual(mail.definition, { name: "send_email", description: "Send mail", input_schema: { type: "object", properties: {} } });
    assert.deepEqual(read.definition, { name: "read_file", description: "Read a file", input_schema: mcp.inputSchema });
    assert.equal(read.title, "Read file");
    assert.deepEqual(read.extras.annotations, { readOnlyHint: true });
  });

  it("does not invent a description that was not given", () => {
    const [tool] = normalizeTools([{ name: "ping", input_schema: { type: "object" } }]);
    assert.deepEqual(tool.definition, { name: "ping", input_schema: { type: "object" } });
    assert.equal(tool.description, "");
  });
});

describe("catalog rules", () => {
  const cases: [string, unknown[], RegExp][] = [
    ["bad name", [{ name: "get weather", description: "x", input_schema: { type: "object" } }], /item 0 \("get weather"\): name must match/],
    ["long name", [{ name: "x".repeat(65), description: "x", input_schema: { type: "object" } }], /item 0 .*name must match/],
    ["duplicate", [anthropic, { ...anthropic }], /item 1 \("get_weather"\): name must be unique \(already used by item 0\)/],
    ["schema type", [{ name: "a", input_schema: { type: "string" } }], /item 0 \("a"\): input schema "type" must be "object"/],
    ["invalid schema", [{ name: "a", input_schema: { type: "object", properties: { x: { type: "nonsense" } } } }], /item 0 \("a"\): input schema is not valid JSON Schema/],
    ["unknown shape", [{ title: "nothing" }], /item 0: unknown tool shape/],
    ["not an object", ["get_weather"], /item 0: a tool must be a JSON object/],
    ["description type", [{ name: "a", description: 3, input_schema: { type: "object" } }], /description must be a string/],
  ];
  for (const [label, items, message] of cases) {
    it(`refuses the whole file: ${label}`, () => {
      const file = tempFile(`${label.replace(/\W/g, "_")}.json`, JSON.stringify(items));
      const error = refusal(() => loadCatalogFile(file));
      assert.equal(error.code, "catalog_invalid");
      assert.match(error.message, new RegExp(file.replace(/[/.]/g, "\\$&")));
      assert.match(error.message, message);
      assert.match(error.message, /nothing was loaded/);
    });
  }

  it("lists every problem of a file at once", () => {
    const error = refusal(() => normalizeTools([{ name: "a b", input_schema: { type: "object" } }, { name: "ok", input_schema: {} }], "many.json"));
    assert.equal(error.problems.length, 2);
    assert.deepEqual(error.problems.map((p) => p.index), [0, 1]);
  });

  it("names the file and line of broken syntax", () => {
    const file = tempFile("broken.jsonl", '{"name":"a","input_schema":{"type":"object"}}\n{oops\n');
    assert.match(refusal(() => loadCatalogFile(file)).message, /broken\.jsonl: line 2: not valid JSON/);
    assert.match(refusal(() => loadCatalogFile(tempFile("broken.yaml", "- name: [unclosed"))).message, /broken\.yaml: not valid YAML/);
    assert.match(refusal(() => loadCatalogFile("/nonexistent/catalog.json")).message, /cannot read file/);
    assert.match(refusal(() => loadCatalogFile(tempFile("obj.json", '{"x": 1}'))).message, /expected a list of records/);
  });
});
