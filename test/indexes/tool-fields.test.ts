import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Tool } from "../../src/catalog/tool.js";
import { regexFields, toolTexts } from "../../src/indexes/tool-fields.js";

function tool(inputSchema: Record<string, unknown>, extra: Partial<Tool> = {}): Tool {
  const definition = { name: "book_flight", description: "Books a flight", input_schema: inputSchema };
  return { name: "book_flight", description: "Books a flight", inputSchema, shape: "anthropic", definition, extras: {}, ...extra } as Tool;
}

describe("toolTexts", () => {
  it("walks nested properties, arrays and unions in order, with descriptions below the top and enum values", () => {
    const texts = toolTexts(tool({
      type: "object",
      description: "not a parameter's description",
      properties: {
        origin: { type: "string", description: "Airport code", enum: ["CDG", "JFK", 7, true, null] },
        passengers: {
          type: "array",
          items: { type: "object", properties: { age: { type: "integer", description: "Age in years" }, seat: { const: "aisle" } } },
        },
        when: { anyOf: [{ type: "string", description: "ISO date" }, { type: "object", properties: { day: { type: "integer" } } }] },
      },
    }));
    assert.deepEqual(texts, {
      name: "book_flight",
      description: "Books a flight",
      paramNames: "origin passengers age seat when day",
      paramDescriptions: "Airport code\nAge in years\nISO date",
      enumValues: "CDG JFK 7 aisle",
      category: "",
    });
  });

  it("stops a few levels down and reads the title and category", () => {
    let schema: Record<string, unknown> = { type: "string", description: "deepest" };
    for (const name of ["e", "d", "c", "b", "a"]) schema = { type: "object", properties: { [name]: schema } };
    const texts = toolTexts(tool(schema, { title: "Book a flight", category: "Travel" }));
    assert.equal(texts.paramNames, "a b c d e");
    assert.equal(texts.paramDescriptions, "", "the description five levels down is past the walk's depth");
    assert.equal(texts.name, "book_flight Book a flight");
    assert.equal(texts.category, "Travel");
  });

  it("gives the regex engine the name, the description and the parameters", () => {
    const t = tool({ type: "object", properties: { city: { type: "string", description: "City name" } } });
    assert.deepEqual(regexFields(t, toolTexts(t)), ["book_flight", "Books a flight", "city\nCity name"]);
  });
});
