import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { LINT_RULES, lintTools, scoreTools, selectRules } from "../../src/lint/runner.js";
import type { Finding } from "../../src/lint/types.js";
import { fixture } from "../helpers/files.js";

const good = JSON.parse(readFileSync(fixture("lint", "seed-good.json"), "utf8")) as unknown[];
const bad = JSON.parse(readFileSync(fixture("lint", "seed-bad.json"), "utf8")) as unknown[];
const badReport = lintTools(bad);

function fired(findings: Finding[], rule: string): string[] {
  return findings.filter((f) => f.rule === rule).map((f) => f.tool);
}

/** Where each rule must fire in seed-bad.json (it may fire elsewhere too, but not on the good tools). */
const EXPECTED: Record<string, string[]> = {
  "name/pattern": ["bad name!"],
  "name/verb-noun": ["weather", "bad name!"],
  "name/vague": ["process", "api_call", "do_thing"],
  "name/style": ["getInvoiceTotal"],
  "description/missing": ["delete_invoice"],
  "description/too-short": ["void_invoice"],
  "description/too-long": ["export_ledger"],
  "description/no-returns": ["calculate_shipping"],
  "description/no-usage": ["get_exchange_rate"],
  "description/no-limits": ["search_orders"],
  "description/params-unmentioned": ["book_meeting_room"],
  "schema/invalid": ["tag_document", "#30"],
  "schema/not-object": ["count_words"],
  "schema/required-missing": ["close_ticket"],
  "schema/param-undescribed": ["book_meeting_room", "rename_folder"],
  "schema/enum-like-string": ["set_ticket_priority"],
  "schema/format-missing": ["schedule_reminder"],
  "schema/number-unbounded": ["list_invoices"],
  "catalog/duplicate-name": ["get_invoice"],
  "catalog/duplicate-definition": ["download_invoice_pdf"],
  "catalog/confusable": ["get_stock_level", "get_stock_levels"],
  "catalog/crud-id-params": ["update_order"],
};

describe("lint rules on the seed's examples", () => {
  it("stays silent on the seed's well-designed tools", () => {
    const report = lintTools(good);
    assert.deepEqual(report.findings, []);
    assert.equal(report.score, 100);
    assert.equal(report.tools, 6);
  });

  it("has a test case for every rule", () => {
    // The poisoning family has its own poisoned examples (poison.test.ts).
    const own = LINT_RULES.filter((r) => !r.id.startsWith("poison/"));
    assert.deepEqual(Object.keys(EXPECTED).sort(), own.map((r) => r.id).sort());
  });

  for (const [rule, tools] of Object.entries(EXPECTED)) {
    it(`${rule} fires where it should`, () => {
      const hits = fired(badReport.findings, rule);
      for (const tool of tools) assert.ok(hits.includes(tool), `${rule} did not fire on ${tool} (fired on: ${hits.join(", ") || "nothing"})`);
    });
  }

  it("stays silent on the good tools even next to the bad ones", () => {
    const mixed = lintTools([...good, ...bad]);
    const goodNames = new Set((good as { name: string }[]).map((t) => t.name));
    assert.deepEqual(mixed.findings.filter((f) => goodNames.has(f.tool)), []);
  });

  it("names the look-alike and the majority spelling in its messages", () => {
    const confusable = badReport.findings.find((f) => f.rule === "catalog/confusable" && f.tool === "get_stock_level");
    assert.match(confusable!.message, /get_stock_levels/);
    const crud = badReport.findings.find((f) => f.rule === "catalog/crud-id-params");
    assert.match(crud!.message, /"orderId".*"order_id"/);
  });

  it("finds user_id vs userId vs id in one CRUD group, and leaves other resources and servers alone", () => {
    const tool = (name: string, param: string) => ({ name, description: `Does ${name.replace(/_/g, " ")} for the account.`, input_schema: { type: "object", properties: { [param]: { type: "string", description: "The id" } }, required: [param] } });
    const report = lintTools([
      tool("get_user", "user_id"), tool("update_user", "userId"), tool("delete_user", "id"), tool("list_users", "team_id"),
      tool("get_team", "teamId"), tool("billing__get_user", "uid"), tool("crm__get_user", "id"),
    ], { rules: ["catalog/crud-id-params"] });
    assert.deepEqual(report.findings.map((f) => f.tool), ["update_user", "delete_user"]);
    assert.match(report.findings[1].message, /takes "id" where get_user takes "user_id"/);
  });

  it("reports broken items as findings instead of refusing the catalog", () => {
    const report = lintTools([{ name: "ok_tool", input_schema: { type: "array" } }, "nonsense", { name: 7, input_schema: { type: "object" } }]);
    assert.equal(report.tools, 3);
    assert.deepEqual(report.findings.filter((f) => f.severity === "error").map((f) => [f.tool, f.rule]), [
      ["ok_tool", "schema/not-object"],
      ["#1", "schema/invalid"],
      ["#2", "name/pattern"],
    ]);
  });

  it("reads every tool shape", () => {
    const report = lintTools([
      { type: "function", function: { name: "get_weather", description: "Get the current weather for a city, in Celsius.", parameters: { type: "object", properties: { city: { type: "string", description: "City name" } } } } },
      { name: "get_forecast", description: "Get a five-day weather forecast for a city.", inputSchema: { type: "string" } },
    ]);
    assert.deepEqual(report.findings.map((f) => [f.tool, f.rule]), [["get_forecast", "schema/not-object"]]);
  });
});

describe("rule selection and score", () => {
  it("selects by id or family and ignores by id or family", () => {
    assert.deepEqual(selectRules(["schema/invalid"]).map((r) => r.id), ["schema/invalid"]);
    assert.ok(selectRules(["name"]).every((r) => r.id.startsWith("name/")));
    assert.ok(!selectRules([], ["catalog"]).some((r) => r.id.startsWith("catalog/")));
    const only = lintTools(bad, { rules: ["name/vague"] });
    assert.deepEqual([...new Set(only.findings.map((f) => f.rule))], ["name/vague"]);
  });

  it("refuses an unknown rule with a suggestion", () => {
    assert.throws(() => selectRules(["name/vauge"]), /Unknown lint rule "name\/vauge"\. Did you mean: name\/vague/);
  });

  it("scores 100 for a clean catalog and loses more for errors than for advice", () => {
    assert.equal(scoreTools(4, []), 100);
    const one = (severity: Finding["severity"]): Finding[] => [{ tool: "a", rule: "r", severity, message: "" }];
    assert.equal(scoreTools(4, one("error")), 75);
    assert.ok(scoreTools(4, one("info")) > scoreTools(4, one("warning")));
  });
});
