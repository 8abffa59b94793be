/**
 * Schemas sent to the model APIs: a draft-04 schema's boolean bounds become numeric (what draft 2020-12, which
 * Anthropic's API checks, allows), everything else is sent as given; the Anthropic request carries the rewritten form.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { buildAnthropicRequest } from "../../src/agents/anthropic.js";
import { Toolbox } from "../../src/agents/toolbox.js";
import { apiSchema } from "../../src/catalog/api-schema.js";
import { loadCatalogFile } from "../../src/catalog/load.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { fixture } from "../helpers/files.js";

const meta2020 = new Ajv2020({ strict: false });
const byName = Object.fromEntries(loadCatalogFile(fixture("catalogs", "drafts.json")).map((t) => [t.name, t.inputSchema]));

describe("apiSchema", () => {
  it("rewrites draft-04 bounds inside items and at any depth, dropping a draft-04 $schema", () => {
    const pdf = apiSchema(byName.read_pdf_pages) as { properties: { pages: { items: Record<string, unknown> } } };
    assert.deepEqual(pdf.properties.pages.items, { type: "integer", exclusiveMinimum: 0 });
    const volume = apiSchema(byName.resize_volume) as { $schema?: string; properties: { size_gb: Record<string, unknown> } };
    assert.deepEqual(volume.properties.size_gb, { type: "number", minimum: 1, exclusiveMaximum: 16384 });
    assert.equal(volume.$schema, undefined);
    const dns = apiSchema(byName.create_dns_record) as { properties: { ttl: Record<string, unknown> } };
    assert.deepEqual(dns.properties.ttl, { type: "integer", exclusiveMinimum: 0, maximum: 86400 });
  });

  it("gives schemas that draft 2020-12 accepts, from ones it refused", () => {
    for (const name of ["read_pdf_pages", "resize_volume", "create_dns_record"]) {
      assert.equal(meta2020.validateSchema({ ...byName[name], $schema: undefined }), false, `${name} before`);
      assert.equal(meta2020.validateSchema(apiSchema(byName[name])), true, `${name} after: ${meta2020.errorsText()}`);
    }
  });

  it("leaves other drafts, false bounds' neighbours and properties named like keywords alone", () => {
    for (const name of ["send_notification", "build_tree", "plot_points", "tag_resources"]) assert.equal(apiSchema(byName[name]), byName[name]);
    const schema = { type: "object", properties: { exclusiveMinimum: { type: "boolean" }, n: { type: "number", maximum: 5, exclusiveMaximum: false } }, required: ["n"] };
    const draft04 = { ...schema, properties: { ...schema.properties, m: { type: "number", minimum: 1, exclusiveMinimum: true } } };
    assert.deepEqual(apiSchema(draft04), {
      ...schema,
      properties: { exclusiveMinimum: { type: "boolean" }, n: { type: "number", maximum: 5 }, m: { type: "number", exclusiveMinimum: 1 } },
    });
  });

  it("is what an Anthropic request carries, while describe keeps the definition as given", async () => {
    const catalog = await ToolIndex.fromFile(fixture("catalogs", "drafts.json"));
    const request = buildAnthropicRequest(new Toolbox(catalog, { mode: "search" }), { model: "m", messages: [{ role: "user", content: "hi" }], cache: false });
    const sent = (request.tools as { name: string; input_schema: unknown }[]).find((t) => t.name === "read_pdf_pages");
    assert.deepEqual((sent?.input_schema as typeof byName.x & { properties: { pages: { items: unknown } } }).properties.pages.items, { type: "integer", exclusiveMinimum: 0 });
    assert.deepEqual((catalog.describe("read_pdf_pages")!.input_schema as { properties: { pages: { items: unknown } } }).properties.pages.items, { type: "integer", minimum: 0, exclusiveMinimum: true });
  });
});
