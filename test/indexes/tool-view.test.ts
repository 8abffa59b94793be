import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeTools } from "../../src/catalog/load.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { ToolView } from "../../src/indexes/tool-view.js";
import { billingCatalog } from "../helpers/billing-catalog.js";

const catalog = normalizeTools(billingCatalog());
const billing = (name: string) => name.startsWith("billing_");
const QUERIES = ["refund an invoice", "list payments", "cancel subscription for customer", "invoce reciept", "export account"];

describe("ToolView: a caller's part of an index", () => {
  const index = new ToolIndex(catalog);
  const view = new ToolView(index, { accept: billing });
  const alone = new ToolIndex(catalog.filter((t) => billing(t.name)));

  it("ranks and scores bm25 exactly as an index of the visible tools alone, with full pages", () => {
    for (const query of QUERIES) {
      const got = view.searchSync(query, { limit: 10 });
      assert.equal(got.length, query === "list payments" || query === "export account" ? alone.searchSync(query, { limit: 10 }).length : 10, query);
      assert.deepEqual(got, alone.searchSync(query, { limit: 10 }), query);
      assert.ok(index.searchSync(query, { limit: 10 }).some((h) => !billing(h.name)), `${query}: the whole index ranks other tools first`);
    }
  });

  it("regex, explain and suggestions see only the visible tools", async () => {
    assert.deepEqual(view.searchSync("invoice", { engine: "regex", limit: 12 }), alone.searchSync("invoice", { engine: "regex", limit: 12 }));
    const name = alone.searchSync("refund an invoice", { limit: 3 })[2].name;
    const why = await view.explain("refund an invoice", name);
    assert.deepEqual(why, await alone.explain("refund an invoice", name));
    assert.ok(why.outranked_by.every((h) => billing(h.name)));
    assert.deepEqual(view.suggest("ledgr"), alone.suggest("ledgr"));
    assert.deepEqual(view.suggest("crm_get"), alone.suggest("crm_get"));
  });

  it("a hidden tool does not exist: describe, get, require, sizes and names", () => {
    const hidden = catalog.find((t) => !billing(t.name))!.name;
    assert.equal(view.describe(hidden), undefined);
    assert.equal(view.get(hidden), undefined);
    assert.equal(view.size, 16);
    assert.deepEqual(view.names(), alone.names());
    assert.deepEqual(view.list().map((t) => t.name), alone.names());
    const hiddenName = /crm_|support_|sales_|ledger_|admin_|ops_|audit_|shipping_/;
    for (const asked of [hidden, "crm_get_refund_1", "billing_get_refund_1"]) {
      assert.throws(() => view.require(asked), (error: { code: string; message: string; details: { suggestions: string[] } }) => {
        assert.equal(error.code, "unknown_tool");
        assert.ok(!hiddenName.test(error.message.replace(asked, "")), error.message);
        assert.ok(error.details.suggestions.every(billing), JSON.stringify(error.details));
        return true;
      });
    }
    assert.ok(index.closestNames("crm_get_refund_1").some((n) => !billing(n)), "the whole index would have suggested hidden tools");
    assert.deepEqual(view.closestNames("billing_get_refund"), alone.closestNames("billing_get_refund"));
  });

  it("follows changes to the index", () => {
    const changing = new ToolIndex(catalog);
    const part = new ToolView(changing, { accept: billing });
    assert.equal(part.searchSync("zebra").length, 0);
    changing.add({ name: "billing_zebra", description: "zebra striped invoices", input_schema: { type: "object" } });
    changing.add({ name: "crm_zebra", description: "zebra zebra", input_schema: { type: "object" } });
    assert.deepEqual(part.searchSync("zebra").map((h) => h.name), ["billing_zebra"]);
    assert.equal(part.size, 17);
    changing.remove("billing_zebra");
    assert.deepEqual(part.searchSync("zebra"), []);
  });
});
