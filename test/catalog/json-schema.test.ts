/**
 * Schemas as servers write them: every draft from 04 to 2020-12 is accepted (also when the declared draft and the
 * keywords disagree), truly broken schemas are refused naming a draft, and schemas past the depth and size limits are
 * refused with `schema_too_large` by every reader (catalog, index, lint, input validation) instead of a RangeError.
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { guessDraft, SCHEMA_LIMITS, schemaDraftCheck, schemaSizeProblem } from "../../src/catalog/json-schema.js";
import { loadCatalogFile, normalizeTools } from "../../src/catalog/load.js";
import { InputValidator } from "../../src/execution/validate-input.js";
import { runTool } from "../../src/execution/run-tool.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { lintTools } from "../../src/lint/runner.js";
import { thrownError as refusal } from "../helpers/errors.js";
import { fixture, tempFile } from "../helpers/files.js";
import { serverScript } from "../mcp/helpers.js";

/** A schema nesting `levels` objects under `properties`, built as text so that even JSON.stringify is not needed. */
function deepSchemaText(levels: number): string {
  let text = '{"type":"string"}';
  for (let i = 0; i < levels; i++) text = `{"type":"object","properties":{"a":${text}}}`;
  return text;
}

const tool = (name: string, schema: unknown) => ({ name, description: `The ${name} tool.`, input_schema: schema });

describe("JSON Schema drafts", () => {
  it("loads a catalog with a tool in each draft, each recognised as its own", () => {
    const tools = loadCatalogFile(fixture("catalogs", "drafts.json"));
    assert.equal(tools.length, 8);
    const drafts = Object.fromEntries(tools.map((t) => [t.name, schemaDraftCheck(t.inputSchema).draft]));
    assert.deepEqual(drafts, {
      read_pdf_pages: "draft-04",
      resize_volume: "draft-04",
      // Declares 2020-12, but only draft-04 reads a boolean exclusiveMinimum: accepted as draft-04.
      create_dns_record: "draft-04",
      tag_resources: "draft-06",
      send_notification: "draft-07",
      build_tree: "2019-09",
      plot_points: "2020-12",
      list_files: "draft-07",
    });
  });

  it("guesses the draft from its keywords when there is no $schema", () => {
    assert.equal(guessDraft({ type: "object", properties: { n: { type: "number", maximum: 3, exclusiveMaximum: true } } }), "draft-04");
    assert.equal(guessDraft({ type: "object", $defs: {} }), "2020-12");
    assert.equal(guessDraft({ type: "object", properties: { t: { $recursiveRef: "#" } } }), "2019-09");
    assert.equal(guessDraft({ type: "object", if: {}, then: {} }), "draft-07");
    assert.equal(guessDraft({ type: "object", properties: {} }), "draft-07");
    assert.equal(guessDraft({ $schema: "http://json-schema.org/draft-06/schema#", type: "object" }), "draft-06");
  });

  it("refuses what no draft accepts, naming the draft and the keyword", () => {
    const cases: [unknown, RegExp][] = [
      [{ type: "object", properties: { n: { type: "intger" } } }, /under draft-07, input_schema\/properties\/n\/type/],
      [{ $schema: "http://json-schema.org/draft-04/schema#", type: "object", properties: { n: { type: "number", minimum: "3" } } }, /under draft-04, input_schema\/properties\/n\/minimum must be number/],
      [{ type: "object", properties: [] }, /input_schema\/properties must be object/],
      [{ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", required: "id" }, /under draft 2020-12, input_schema\/required must be array/],
    ];
    const error = refusal(() => normalizeTools(cases.map(([schema], i) => tool(`t${i}`, schema)), "broken.json"));
    assert.equal(error.code, "catalog_invalid");
    assert.equal(error.problems.length, cases.length);
    cases.forEach(([, pattern], i) => {
      assert.match(error.problems[i].message, pattern);
      assert.match(error.problems[i].message, /no other draft \(.*\) accepts it either/);
    });
  });

  it("still refuses a schema that is not an object schema", () => {
    const error = refusal(() => normalizeTools([tool("a", { type: "array" }), tool("b", "object"), tool("c", null)]));
    assert.deepEqual(error.problems.map((p) => p.message), [
      'input schema "type" must be "object" (found "array")',
      "input schema must be a JSON Schema object",
      "input schema must be a JSON Schema object",
    ]);
  });

  it("accepts the tools of the reference MCP servers as they list them", async () => {
    const listed: unknown[] = [];
    const allowed = dirname(tempFile("allowed.txt", ""));
    for (const [pkg, args] of [["server-everything", ["stdio"]], ["server-filesystem", [allowed]], ["server-memory", []]] as const) {
      const client = new Client({ name: "schema-test", version: "1.0.0" });
      const env = { PATH: process.env.PATH ?? "", MEMORY_FILE_PATH: tempFile("memory.jsonl", "") };
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverScript(pkg), ...args], env, stderr: "ignore" }));
      try {
        listed.push(...(await client.listTools()).tools);
      } finally {
        await client.close();
      }
    }
    assert.ok(listed.length >= 30, `the servers listed ${listed.length} tools`);
    assert.equal(normalizeTools(listed, "reference servers").length, listed.length);
  });
});

describe("input validation follows the schema's draft", () => {
  const validator = new InputValidator();
  const [pdf, , dns, , , , plot] = loadCatalogFile(fixture("catalogs", "drafts.json"));

  it("reads a draft-04 boolean exclusiveMinimum as exclusive, in items and at the top level", () => {
    assert.equal(validator.validate(pdf.name, pdf.inputSchema, { path: "a.pdf", pages: [1, 2] }).ok, true);
    const zero = validator.validate(pdf.name, pdf.inputSchema, { path: "a.pdf", pages: [0] });
    assert.equal(zero.ok, false);
    assert.match(zero.ok ? "" : zero.problems.join(), /pages\[0\]" must be > 0/);
    assert.equal(validator.validate(dns.name, dns.inputSchema, { name: "a", ttl: 0 }).ok, false);
    assert.equal(validator.validate(dns.name, dns.inputSchema, { name: "a", ttl: 60 }).ok, true);
  });

  it("reads 2020-12 prefixItems through $defs", () => {
    assert.equal(validator.validate(plot.name, plot.inputSchema, { points: [[1, 2]] }).ok, true);
    const extra = validator.validate(plot.name, plot.inputSchema, { points: [[1, 2, 3]] });
    assert.equal(extra.ok, false);
    assert.equal(extra.ok ? undefined : extra.code, "invalid_arguments");
  });
});

describe("schema depth and size limits", () => {
  const deep = deepSchemaText(3000);

  it("refuses a catalog with a 3,000-deep schema with schema_too_large, not a RangeError", () => {
    const path = tempFile("deep.json", `[{"name":"deep_tool","description":"x","input_schema":${deep}}]`);
    const error = refusal(() => loadCatalogFile(path));
    assert.equal(error.code, "catalog_invalid");
    assert.equal(error.problems[0].code, "schema_too_large");
    assert.equal(error.problems[0].name, "deep_tool");
    assert.match(error.message, new RegExp(`nests deeper than the limit of ${SCHEMA_LIMITS.maxDepth} levels`));
  });

  it("refuses a schema with too many values, and accepts one just inside both limits", () => {
    const wide = { type: "object", properties: Object.fromEntries(Array.from({ length: SCHEMA_LIMITS.maxValues / 2 }, (_, i) => [`p${i}`, { type: "string" }])) };
    assert.match(schemaSizeProblem(wide) ?? "", /more than the limit of 50000 keys and values/);
    const inside = JSON.parse(deepSchemaText(SCHEMA_LIMITS.maxDepth / 2 - 1));
    assert.equal(schemaSizeProblem(inside), undefined);
    assert.equal(normalizeTools([tool("inside", inside)]).length, 1);
  });

  it("refuses such a tool in ToolIndex.add with schema_too_large", async () => {
    const index = await ToolIndex.fromTools([]);
    const error = refusal(() => index.add(tool("deep_tool", JSON.parse(deep))));
    assert.equal(error.code, "schema_too_large");
    assert.equal(index.size, 0);
  });

  it("lints it as one schema/invalid finding", () => {
    const report = lintTools([tool("get_deep", JSON.parse(deep)), tool("get_fine", { type: "object", properties: {} })]);
    const deepFindings = report.findings.filter((f) => f.tool === "get_deep" && f.rule === "schema/invalid");
    assert.equal(deepFindings.length, 1);
    assert.match(deepFindings[0].message, /schema_too_large/);
  });

  it("refuses to validate input against it, and runTool reports schema_too_large", async () => {
    const schema = JSON.parse(deep);
    const check = new InputValidator().validate("deep_tool", schema, { a: {} });
    assert.equal(check.ok, false);
    assert.equal(check.ok ? undefined : check.code, "schema_too_large");
    const catalog = { get: () => ({ name: "deep_tool", description: "", inputSchema: schema, shape: "anthropic" as const, definition: { name: "deep_tool", input_schema: schema }, extras: {} }), closestNames: () => [] };
    let ran = false;
    const outcome = await runTool({ name: "deep_tool", input: {} }, catalog, { deep_tool: () => (ran = true) });
    assert.equal(outcome.status, "schema_too_large");
    assert.equal(outcome.isError, true);
    assert.equal(ran, false);
  });
});
