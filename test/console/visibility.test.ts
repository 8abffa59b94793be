/**
 * The web console with a key limited to `billing_*` (SPEC §16): the collection list counts only billing tools, and
 * every engine's results while searching as you type are billing tools, in full pages; no page text names another.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { createApiKey } from "../../src/server/auth.js";
import { billingCatalog } from "../helpers/billing-catalog.js";
import { launchChromium, noBrowser, screenshot, watchPage } from "../helpers/browser.js";
import { makeService, type TestService } from "../server/helpers.js";

const ENGINES = ["bm25", "regex", "semantic", "hybrid"];
const HIDDEN = /\b(crm|support|sales|ledger|admin|ops|audit|shipping)_\w+/;

describe("web console with a tool-limited key", { skip: noBrowser }, () => {
  let service: TestService;
  let url: string;
  let browser: Browser;
  let key: string;

  before(async () => {
    service = await makeService();
    await service.app.inject({ method: "PUT", url: "/v1/collections/acme", headers: service.auth(service.keys.admin), payload: { kind: "tools", tools: billingCatalog() } });
    key = (await createApiKey(service.store, { scope: "read", toolsAllow: ["billing_*"] })).key;
    url = await service.app.listen({ host: "127.0.0.1", port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it("lists 16 tools and searches billing tools only", async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const seen = watchPage(page, [url]);
    await page.addInitScript((k) => sessionStorage.setItem("toolsearch.key", k), key);
    await page.goto(`${url}/`);
    const row = page.locator('tr[data-collection="acme"]');
    await row.waitFor();
    assert.match(await row.innerText(), /tools\s+16\s/);
    await page.goto(`${url}/#/c/acme/search`);
    await page.locator('input[name="q"]').pressSequentially("invoice", { delay: 30 });
    for (const engine of ENGINES) await page.locator(`[data-engine="${engine}"] li[data-name]`).first().waitFor();
    for (const engine of ENGINES) {
      const names = await page.locator(`[data-engine="${engine}"] li[data-name]`).evaluateAll((lis) => lis.map((li) => li.getAttribute("data-name")!));
      assert.ok(names.length >= 5, `${engine}: ${names.join(", ")}`);
      assert.ok(names.every((n) => n.startsWith("billing_")), `${engine}: ${names.join(", ")}`);
    }
    const text = await page.locator("body").innerText();
    assert.ok(!HIDDEN.test(text), text.match(HIDDEN)?.[0]);
    await screenshot(page, "console-visibility-search");
    assert.deepEqual(seen.errors, []);
    await page.close();
  });
});
