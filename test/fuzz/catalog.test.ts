/**
 * Property tests of the catalog loader and the tool index: any JSON value, any shape, any schema nesting, any file
 * text. The only failures allowed are ToolsearchErrors with a code; a refused catalog or tool leaves nothing behind.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import { loadCatalogFile, normalizeTools } from "../../src/catalog/load.js";
import { TOOL_NAME_PATTERN } from "../../src/catalog/validate.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { anyText, fuzzParameters, inputSchemaLike, onlyCodedErrors, onlyCodedErrorsAsync, wordyText } from "./settings.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const name = fc.oneof(fc.constantFrom("get_weather", "send_email", "a", "x".repeat(64), "x".repeat(65), "bad name", ""), fc.stringMatching(/^[a-zA-Z0-9_-]{1,12}$/), anyText(10), fc.integer());
const description = fc.oneof(wordyText(), fc.jsonValue({ maxDepth: 1 }));

/** Tools in each wire shape, with fields of the right and the wrong types. */
const toolLike = fc.oneof(
  fc.record({ name, description, input_schema: inputSchemaLike, category: fc.oneof(fc.string(), fc.integer()) }, { requiredKeys: ["name"] }),
  fc.record({ type: fc.constant("function"), function: fc.record({ name, description, parameters: inputSchemaLike }, { requiredKeys: [] }) }),
  fc.record({ type: fc.constant("function"), name, description, parameters: inputSchemaLike, strict: fc.boolean() }, { requiredKeys: ["type"] }),
  fc.record({ name, title: fc.oneof(fc.string(), fc.integer()), description, inputSchema: inputSchemaLike }, { requiredKeys: [] }),
  fc.anything({ maxDepth: 3 }),
);

const dir = makeTempDir("toolsearch-fuzz-");
after(() => rmSync(dir, { recursive: true, force: true }));

describe("catalog loader (property)", () => {
  it("accepts a list whole, with only valid names, or refuses it with catalog_invalid naming each item", () => {
    fc.assert(
      fc.property(fc.array(toolLike, { maxLength: 6 }), (items) => {
        const result = onlyCodedErrors(["catalog_invalid"], () => normalizeTools(items, "fuzz"));
        if ("value" in result) {
          assert.equal(result.value.length, items.length);
          for (const tool of result.value) assert.match(tool.name, TOOL_NAME_PATTERN);
        } else {
          assert.ok(result.error.problems.length > 0);
          for (const p of result.error.problems) assert.ok(p.index !== undefined && p.index >= 0 && p.index < items.length);
        }
      }),
      fuzzParameters(),
    );
  });

  it("reads any file text as JSON, JSONL or YAML, or refuses it with a code", () => {
    let n = 0;
    const text = fc.oneof(anyText(300), fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)), fc.array(toolLike, { maxLength: 3 }).map((t) => JSON.stringify(t) ?? ""));
    fc.assert(
      fc.property(text, fc.constantFrom("json", "jsonl", "yaml"), (content, ext) => {
        const path = join(dir, `catalog-${n++}.${ext}`);
        writeFileSync(path, content);
        onlyCodedErrors(["file_parse", "catalog_invalid"], () => loadCatalogFile(path));
      }),
      fuzzParameters(),
    );
  });
});

describe("tool index (property)", () => {
  it("builds from any list or refuses it whole; a refused add leaves the index as it was", async () => {
    const base = [
      { name: "get_weather", description: "Current weather in a city", input_schema: { type: "object", properties: { city: { type: "string" } } } },
      { name: "get_stock_price", description: "Latest price of a stock", input_schema: { type: "object", properties: { ticker: { type: "string" } } } },
    ];
    await fc.assert(
      fc.asyncProperty(fc.array(toolLike, { maxLength: 4 }), async (items) => {
        const built = await onlyCodedErrorsAsync(["catalog_invalid"], () => ToolIndex.fromTools(items));
        if ("value" in built) assert.equal(built.value.size, items.length);
        const index = await ToolIndex.fromTools(base);
        for (const item of items) {
          const size = index.size;
          const before = await index.search("weather city");
          const added = onlyCodedErrors(["tool_invalid", "schema_too_large"], () => index.add(item));
          if ("error" in added) {
            assert.equal(index.size, size);
            assert.deepEqual(await index.search("weather city"), before);
          }
        }
      }),
      fuzzParameters(100),
    );
  });

  it("answers any query on bm25 and regex with results or a coded error", async () => {
    const index = await ToolIndex.fromTools([
      { name: "get_weather", description: "Current weather in a city", input_schema: { type: "object", properties: { city: { type: "string", description: "City, e.g. Paris" } } } },
      { name: "convert_currency", description: "Convert an amount between currencies", input_schema: { type: "object", properties: { amount: { type: "number" } } } },
    ]);
    await fc.assert(
      fc.asyncProperty(fc.oneof(wordyText(), anyText(250)), fc.constantFrom("bm25", "regex"), fc.integer({ min: 1, max: 50 }), async (query, engine, limit) => {
        const result = await onlyCodedErrorsAsync(["invalid_pattern", "pattern_too_long"], () => index.search(query, { engine: engine as "bm25" | "regex", limit }));
        if ("value" in result) {
          assert.ok(result.value.length <= limit);
          for (const hit of result.value) assert.ok(Number.isFinite(hit.score));
        } else assert.equal(engine, "regex");
      }),
      fuzzParameters(),
    );
  });
});
