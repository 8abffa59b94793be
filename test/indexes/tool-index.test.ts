import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolsearchError } from "../../src/errors.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { fixture } from "../helpers/files.js";

const enterprise = await ToolIndex.fromFile(fixture("catalogs", "enterprise.json"));
const finance = await ToolIndex.fromFile(fixture("catalogs", "weather-finance.json"));
const top = async (index: ToolIndex, query: string, engine: "bm25" | "regex" = "bm25") =>
  (await index.search(query, { engine, limit: 5 })).map((h) => h.name);

describe("ToolIndex on the enterprise catalog (Vietnamese without diacritics)", () => {
  it("finds the customer profile tool, with or without diacritics in the query", async () => {
    assert.equal((await top(enterprise, "Lay thong tin khach hang C-5521"))[0], "get_customer_profile");
    assert.equal((await top(enterprise, "Lấy thông tin khách hàng C-5521"))[0], "get_customer_profile");
  });

  it("finds the stock tool for 'kiem tra ton kho'", async () => {
    assert.equal((await top(enterprise, "kiem tra ton kho"))[0], "get_stock_level");
  });

  it("regex (?i)customer finds both customer tools, name matches first", async () => {
    const hits = await top(enterprise, "(?i)customer", "regex");
    assert.deepEqual(hits.slice(0, 2), ["get_customer_profile", "update_customer_segment"]);
  });
});

describe("ToolIndex on weather and finance tools", () => {
  it("finds get_weather for 'weather in Paris'", async () => {
    assert.equal((await top(finance, "weather in Paris"))[0], "get_weather");
  });

  it("tolerates typos: 'wether' finds get_weather", async () => {
    assert.ok((await top(finance, "wether")).includes("get_weather"));
    assert.equal((await top(finance, "current wether")).at(0), "get_weather");
  });

  it("matches identifiers however they are written", async () => {
    assert.equal((await top(finance, "getStockPrice"))[0], "get_stock_price");
    assert.equal((await top(finance, "stock-price"))[0], "get_stock_price");
  });

  it("shapes results: score, description, category, limit", async () => {
    const [hit] = await enterprise.search("hoan tien", { limit: 1 });
    assert.equal(hit.name, "process_refund");
    assert.equal(hit.category, "Finance");
    assert.ok(hit.score > 0);
    assert.ok(hit.description.length <= 200);
    assert.equal((await finance.search("get", { limit: 50 })).length, 6);
    assert.equal((await finance.search("get")).length, 5);
    assert.equal((await finance.search(".", { engine: "regex", limit: 50 })).length, 8);
    await assert.rejects(finance.search("x", { limit: 51 }), (e: ToolsearchError) => e.code === "invalid_option");
    await assert.rejects(finance.search("x", { limit: 0 }), (e: ToolsearchError) => e.code === "invalid_option");
    await assert.rejects(finance.search("x", { engine: "nope" as "bm25" }), (e: ToolsearchError) => e.code === "unknown_engine");
  });

  it("returns nothing for nonsense and suggests near words", async () => {
    assert.deepEqual(await finance.search("qqqxxzz"), []);
    assert.ok(finance.suggest("forcast").includes("forecast"));
  });
});

describe("ToolIndex changes", () => {
  it("add, replace and remove take effect at once", async () => {
    const index = await ToolIndex.fromFile(fixture("catalogs", "weather-finance.json"));
    index.add({ name: "get_air_quality", description: "Air pollution index of a city", input_schema: { type: "object" } });
    assert.equal((await top(index, "air pollution"))[0], "get_air_quality");
    assert.throws(() => index.add({ name: "get_air_quality", input_schema: { type: "object" } }), /already in the index/);
    index.replace({ name: "get_air_quality", description: "Pollen count", input_schema: { type: "object" } });
    assert.deepEqual(await top(index, "pollution"), []);
    assert.equal((await top(index, "pollen"))[0], "get_air_quality");
    assert.equal(index.remove("get_air_quality"), true);
    assert.deepEqual(await top(index, "pollen"), []);
    assert.equal(index.size, 8);
    assert.throws(() => index.add({ name: "bad name", input_schema: { type: "object" } }), /name must match/);
  });

  it("changes made before the first regex search or typo are seen by them (their texts are made on first need)", async () => {
    const index = await ToolIndex.fromFile(fixture("catalogs", "weather-finance.json"));
    index.add({ name: "get_air_quality", description: "Air pollution index of a city", input_schema: { type: "object" } });
    assert.equal(index.remove("get_weather"), true);
    index.add({ name: "get_pollen_count", description: "Pollen count forecast", input_schema: { type: "object" } });
    assert.deepEqual(await top(index, "(?i)^get_(air|weather|pollen)", "regex"), ["get_air_quality", "get_pollen_count"]);
    assert.equal((await top(index, "polution"))[0], "get_air_quality", "typo vocabulary holds terms added after the build");
    assert.ok(!(await top(index, "wether")).includes("get_weather"), "and not the removed tool");
    const why = await index.explain("(?i)pollen", "get_pollen_count", { engine: "regex" });
    assert.equal(why.rank, 1);
    // After the first need, changes go straight into the regex texts.
    index.remove("get_air_quality");
    assert.deepEqual(await top(index, "(?i)^get_air", "regex"), []);
  });

  it("describe returns the definition as given; require suggests close names", () => {
    assert.deepEqual(finance.describe("get_timezone"), {
      name: "get_timezone", description: "Get the time zone of a location",
      input_schema: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
    });
    assert.equal(finance.describe("nope"), undefined);
    assert.throws(() => finance.require("get_wether"), (e: ToolsearchError) =>
      e.code === "unknown_tool" && /Did you mean: get_weather/.test(e.message));
  });

  it("fromTools accepts any shape and validates like a file", async () => {
    const index = await ToolIndex.fromTools([{ type: "function", function: { name: "ping", description: "Check the server answers" } }]);
    assert.deepEqual(await top(index, "server"), ["ping"]);
    await assert.rejects(ToolIndex.fromTools([{ name: "a", input_schema: { type: "array" } }]), (e: ToolsearchError) => e.code === "catalog_invalid");
  });
});
