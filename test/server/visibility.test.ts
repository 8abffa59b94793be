/**
 * Per-key tool visibility on the service (SPEC §16). The strongest check of "a hidden tool does not exist for this
 * caller" is a twin: the same requests by a key limited to `billing_*` on the whole catalog, and by a full key on a
 * collection holding only the billing tools, must get the same answers (names, scores, ranks, sizes, explanations,
 * lint findings, eval metrics, errors and their suggestions).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createApiKey } from "../../src/server/auth.js";
import { billingCatalog } from "../helpers/billing-catalog.js";
import { makeService, type TestService } from "./helpers.js";

const catalog = billingCatalog();
const billingOnly = catalog.filter((t) => t.name.startsWith("billing_"));
const HIDDEN = /\b(crm|support|sales|ledger|admin|ops|audit|shipping)_/;

describe("tool visibility per key", () => {
  let s: TestService;
  let limited: string;
  let limitedWriter: string;
  before(async () => {
    s = await makeService();
    await s.app.inject({ method: "PUT", url: "/v1/collections/acme", headers: s.auth(s.keys.admin), payload: { kind: "tools", tools: catalog } });
    await s.app.inject({ method: "PUT", url: "/v1/collections/twin", headers: s.auth(s.keys.admin), payload: { kind: "tools", tools: billingOnly } });
    limited = (await createApiKey(s.store, { scope: "read", toolsAllow: ["billing_*"] })).key;
    limitedWriter = (await createApiKey(s.store, { scope: "write", toolsAllow: ["billing_*"], toolsDeny: ["*_secret"] })).key;
  });
  after(() => s?.close());

  /** The same request as the limited key on `acme` and as an admin on `twin`; answers compared with the names swapped. */
  async function twin(method: "GET" | "POST", path: string, payload?: object, compare: (body: Record<string, unknown>) => unknown = (b) => b, echoed: string[] = []) {
    // One request id for both, so that error bodies (which carry it) compare equal.
    const mine = await s.app.inject({ method, url: `/v1/collections/acme${path}`, headers: { ...s.auth(limited), "x-request-id": "twin" }, payload });
    const theirs = await s.app.inject({ method, url: `/v1/collections/twin${path}`, headers: { ...s.auth(s.keys.admin), "x-request-id": "twin" }, payload });
    assert.equal(mine.statusCode, theirs.statusCode, `${path}: ${mine.body}`);
    // The caller's own words (a name it asked for) may come back; nothing else may name a hidden tool.
    const asked = [path.split("/").pop()!, ...echoed, ...Object.values(payload ?? {}).filter((v): v is string => typeof v === "string")];
    const rest = asked.sort((a, b) => b.length - a.length).reduce((body, words) => body.replaceAll(words, ""), mine.body.replaceAll(JSON.stringify(payload ?? {}), ""));
    assert.ok(!HIDDEN.test(rest), `${path} names a hidden tool: ${mine.body.slice(0, 300)}`);
    assert.deepEqual(compare(JSON.parse(mine.body.replaceAll("acme", "twin"))), compare(theirs.json()));
    return mine.json();
  }

  it("search: full pages of billing tools, ranked and scored as in a billing-only collection", async () => {
    for (const query of ["refund an invoice", "cancel subscription for customer", "invoce reciept"]) {
      for (const engine of ["bm25", "regex", "semantic", "hybrid"]) {
        const answer = await twin("POST", "/search", { query: engine === "regex" ? "invoice" : query, engine, limit: 10 });
        assert.equal(answer.results.length, 10, `${engine} ${query}`);
      }
      const everyone = await s.app.inject({ method: "POST", url: "/v1/collections/acme/search", headers: s.auth(s.keys.read), payload: { query, limit: 10 } });
      assert.ok(HIDDEN.test(everyone.body), "a full key sees the other tools first");
    }
    await twin("POST", "/search", { query: "zzzqqq nothing", limit: 10 });
  });

  it("describe, explain, lint and eval answer as if the other tools did not exist", async () => {
    await twin("GET", "/tools/billing_get_invoice_0");
    const hidden = await twin("GET", "/tools/crm_get_refund_0");
    assert.equal(hidden.error.code, "unknown_tool");
    const hiddenPost = await twin("POST", "/explain", { query: "invoice", name: "crm_get_refund_0" });
    assert.equal(hiddenPost.error.code, "unknown_tool");
    const explained = await twin("POST", "/explain", { query: "refund an invoice", name: "billing_update_refund_9" });
    assert.ok(explained.rank > 0);
    await twin("POST", "/explain", { query: "invoice", name: "billing_update_refund_9", engine: "regex" });
    await twin("GET", "/lint");
    const queries = [
      { id: "q1", query: "refund an invoice", relevant: ["billing_update_refund_9"] },
      { id: "q2", query: "payment receipt", relevant: ["billing_cancel_payment_10"] },
    ].map((q) => JSON.stringify(q)).join("\n");
    const withoutTimes = (b: Record<string, unknown>) => JSON.parse(JSON.stringify({ ...b, latency: undefined, created: undefined }, (k, v) => (/_ms$/.test(k) ? undefined : v)));
    await twin("POST", "/eval", { queries, engines: ["bm25", "regex"] }, withoutTimes);
    const naming = await twin("POST", "/eval", { queries: `${queries}\n{"id":"q3","query":"x","relevant":["crm_get_refund_0"]}` }, undefined, ["crm_get_refund_0"]);
    assert.equal(naming.error.code, "queries_invalid");
  });

  it("sizes and listings count only visible tools; ETags do not move when hidden tools are written", async () => {
    const one = await s.app.inject({ method: "GET", url: "/v1/collections/acme", headers: s.auth(limited) });
    assert.equal(one.json().size, billingOnly.length);
    const list = await s.app.inject({ method: "GET", url: "/v1/collections", headers: s.auth(limited) });
    assert.equal(list.json().collections.find((c: { name: string }) => c.name === "acme").size, billingOnly.length);
    const before = await s.app.inject({ method: "GET", url: "/v1/collections/acme/tools/billing_get_invoice_0", headers: s.auth(limited) });
    const updatedBefore = one.json().updated_at;
    await s.app.inject({ method: "PUT", url: "/v1/collections/acme/tools/crm_new_thing", headers: s.auth(s.keys.write), payload: { name: "crm_new_thing", description: "invoice thing", input_schema: { type: "object" } } });
    const afterWrite = await s.app.inject({ method: "GET", url: "/v1/collections/acme/tools/billing_get_invoice_0", headers: s.auth(limited) });
    assert.equal(afterWrite.headers.etag, before.headers.etag);
    const again = await s.app.inject({ method: "GET", url: "/v1/collections/acme", headers: s.auth(limited) });
    assert.deepEqual(again.json(), { ...one.json(), updated_at: updatedBefore });
    const full = await s.app.inject({ method: "GET", url: "/v1/collections/acme", headers: s.auth(s.keys.read) });
    assert.equal(full.json().size, catalog.length + 1);
  });

  it("writes: a visible tool with its (digest) ETag; a hidden name is refused whether or not it exists", async () => {
    const auth: Record<string, string> = s.auth(limitedWriter);
    const tool = { name: "billing_extra", description: "extra billing tool for invoices", input_schema: { type: "object" } };
    const created = await s.app.inject({ method: "PUT", url: "/v1/collections/acme/tools/billing_extra", headers: auth, payload: tool });
    assert.equal(created.statusCode, 201, created.body);
    const etag = created.headers.etag as string;
    assert.match(etag, /^"v[0-9a-f]{20}"$/);
    const stale = await s.app.inject({ method: "PUT", url: "/v1/collections/acme/tools/billing_extra", headers: { ...auth, "if-match": '"v0000"' }, payload: tool });
    assert.equal(stale.statusCode, 412);
    assert.equal(stale.json().error.details.etag, etag.slice(1, -1));
    const fresh = await s.app.inject({ method: "PUT", url: "/v1/collections/acme/tools/billing_extra", headers: { ...auth, "if-match": etag }, payload: tool });
    assert.equal(fresh.statusCode, 200, fresh.body);
    // Refusals compared below carry one request id, so that their bodies can be compared whole.
    auth["x-request-id"] = "refusal";
    const refusals = [
      await s.app.inject({ method: "PUT", url: "/v1/collections/acme/tools/crm_get_refund_0", headers: auth, payload: { ...tool, name: "crm_get_refund_0" } }),
      await s.app.inject({ method: "PUT", url: "/v1/collections/acme/tools/crm_absent", headers: auth, payload: { ...tool, name: "crm_absent" } }),
      await s.app.inject({ method: "PUT", url: "/v1/collections/acme/tools/billing_x_secret", headers: auth, payload: { ...tool, name: "billing_x_secret" } }),
      await s.app.inject({ method: "DELETE", url: "/v1/collections/acme/tools/crm_get_refund_0", headers: auth }),
      await s.app.inject({ method: "DELETE", url: "/v1/collections/acme/tools/crm_absent", headers: auth }),
      await s.app.inject({ method: "POST", url: "/v1/collections/acme/batch", headers: auth, payload: { delete: ["crm_get_refund_0"] } }),
      await s.app.inject({ method: "POST", url: "/v1/collections/acme/batch", headers: auth, payload: { delete: ["crm_absent"] } }),
      await s.app.inject({ method: "PUT", url: "/v1/collections/acme", headers: auth, payload: { kind: "tools", tools: billingOnly } }),
      await s.app.inject({ method: "DELETE", url: "/v1/collections/acme", headers: auth }),
    ];
    for (const res of refusals) assert.equal(res.json().error.code, "forbidden", res.body);
    // The refusal for an existing hidden tool and an absent one read the same, but for the name.
    assert.equal(refusals[3].body.replaceAll("crm_get_refund_0", "X"), refusals[4].body.replaceAll("crm_absent", "X"));
    assert.equal(refusals[5].body.replaceAll("crm_get_refund_0", "X"), refusals[6].body.replaceAll("crm_absent", "X"));
    const stillThere = await s.app.inject({ method: "GET", url: "/v1/collections/acme/tools/crm_get_refund_0", headers: s.auth(s.keys.read) });
    assert.equal(stillThere.statusCode, 200, stillThere.body);
  });

  it("keys create refuses empty or oversized globs", async () => {
    await assert.rejects(createApiKey(s.store, { scope: "read", toolsAllow: [] }), { code: "invalid_option" });
    await assert.rejects(createApiKey(s.store, { scope: "read", toolsDeny: ["x".repeat(300)] }), { code: "invalid_option" });
  });
});
