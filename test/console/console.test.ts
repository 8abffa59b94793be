import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium, noBrowser, screenshot, watchPage } from "../helpers/browser.js";
import { helpCenter, makeService, type TestService, weatherTools } from "../server/helpers.js";

const TOOL_ENGINES = ["bm25", "regex", "semantic", "hybrid"];

describe("web console in Chromium", { skip: noBrowser }, () => {
  let service: TestService;
  let open: TestService;
  let url: string;
  let openUrl: string;
  let browser: Browser;

  before(async () => {
    service = await makeService();
    open = await makeService({ noAuth: true });
    for (const s of [service, open]) {
      await s.app.inject({ method: "PUT", url: "/v1/collections/weather", headers: s.auth(s.keys.admin), payload: { kind: "tools", tools: weatherTools() } });
      await s.app.inject({ method: "PUT", url: "/v1/collections/help", headers: s.auth(s.keys.admin), payload: { kind: "docs", documents: helpCenter() } });
    }
    url = await service.app.listen({ host: "127.0.0.1", port: 0 });
    openUrl = await open.app.listen({ host: "127.0.0.1", port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await open?.close();
  });

  async function newPage(base: string): Promise<{ page: Page; seen: ReturnType<typeof watchPage> }> {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    return { page, seen: watchPage(page, [base]) };
  }

  it("asks for a key once, keeps it for the session, and lists the collections", async () => {
    const { page, seen } = await newPage(url);
    await page.goto(`${url}/`);
    await page.getByLabel("Key").fill(service.keys.read);
    await screenshot(page, "console-key");
    await page.getByRole("button", { name: "Use key" }).click();
    const rows = page.locator("tr[data-collection]");
    await rows.first().waitFor();
    assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-collection"))), ["help", "weather"]);
    const weather = await page.locator('tr[data-collection="weather"]').innerText();
    assert.match(weather, /tools\s+8\s+bm25, regex, semantic, hybrid/);
    await screenshot(page, "console-collections");
    await page.reload();
    await rows.first().waitFor();
    assert.equal(await page.locator("#api-key").count(), 0, "the key survives a reload in the same session");
    assert.deepEqual(seen.outside, []);
    assert.deepEqual(seen.errors, []);
    assert.deepEqual(seen.failed, [`401 ${url}/v1/collections`], "only the first call, before the key, is refused");
    await page.close();
  });

  it("searches as you type with every engine side by side, and explains a hit", async () => {
    const { page, seen } = await newPage(url);
    // As if the key had been typed earlier in this tab's session.
    await page.addInitScript((key) => sessionStorage.setItem("toolsearch.key", key), service.keys.read);
    await page.goto(`${url}/#/c/weather/search`);
    await page.locator('input[name="q"]').pressSequentially("weather", { delay: 30 });
    for (const engine of TOOL_ENGINES) {
      await page.locator(`[data-engine="${engine}"] li[data-name]`).first().waitFor();
    }
    for (const engine of TOOL_ENGINES) {
      const names = await page.locator(`[data-engine="${engine}"] li[data-name]`).evaluateAll((lis) => lis.map((li) => li.getAttribute("data-name")));
      assert.ok(names.includes("get_weather"), `${engine}: ${names.join(", ")}`);
    }
    const hit = page.locator('[data-engine="bm25"] li[data-name="get_weather"] button.hit');
    await hit.focus();
    await page.keyboard.press("Enter");
    const why = page.locator('[data-engine="bm25"] li[data-name="get_weather"] .explanation');
    await why.waitFor();
    assert.match(await why.innerText(), /get_weather ranks #1 with bm25/);
    assert.match(await why.innerText(), /contribution/);
    await page.locator('[data-engine="hybrid"] li[data-name="get_forecast"] button.hit').click();
    await page.locator('[data-engine="hybrid"] li[data-name="get_forecast"] .explanation').waitFor();
    assert.match(await page.locator('[data-engine="hybrid"] li[data-name="get_forecast"] .explanation').innerText(), /Fused score/);
    assert.match(page.url(), /q=weather/);
    await screenshot(page, "console-search");
    // A knowledge base: its three engines, documents by id.
    await page.goto(`${url}/#/c/help/search?q=refund`);
    for (const engine of ["bm25", "semantic", "hybrid"]) await page.locator(`[data-engine="${engine}"] li[data-name="kb-refunds"]`).waitFor();
    assert.equal(await page.locator('[data-engine="regex"]').count(), 0);
    await page.locator('[data-engine="bm25"] li[data-name="kb-refunds"] button.hit').click();
    await page.locator('[data-engine="bm25"] li[data-name="kb-refunds"] .explanation').waitFor();
    await screenshot(page, "console-search-docs");
    assert.deepEqual(seen.outside, []);
    assert.deepEqual(seen.errors, []);
    assert.deepEqual(seen.failed, []);
    await page.close();
  });

  it("shows a tool's page (definition, lint findings, explanation) and the collection's lint report", async () => {
    const { page, seen } = await newPage(openUrl);
    await page.goto(`${openUrl}/#/c/weather/item/get_timezone?q=${encodeURIComponent("weather in a location")}&engine=bm25`);
    await page.locator(".explanation").waitFor();
    assert.match(await page.locator(".explanation").innerText(), /get_timezone ranks #\d+ with bm25/);
    await page.locator("pre.json").waitFor();
    assert.match(await page.locator("pre.json").innerText(), /"name": "get_timezone"/);
    await page.locator("#lint-h").waitFor();
    await page.locator("table.findings, p.ok").first().waitFor();
    await screenshot(page, "console-tool");
    await page.goto(`${openUrl}/#/c/weather/lint`);
    await page.locator(".lint-score").waitFor();
    assert.match(await page.locator(".lint-score").innerText(), /Score \d+\/100 over 8 tools/);
    await screenshot(page, "console-lint");
    assert.equal(await page.locator("#api-key").count(), 0, "no key is asked for under --no-auth");
    assert.deepEqual(seen.outside, []);
    assert.deepEqual(seen.errors, []);
    assert.deepEqual(seen.failed, []);
    await page.close();
  });

  it("runs an eval from an uploaded queries file and shows the metrics and the report's charts", async () => {
    const queries = join(open.dir, "queries.jsonl");
    writeFileSync(queries, [
      { id: "q1", query: "weather in Paris", relevant: ["get_weather"] },
      { id: "q2", query: "how much is a dollar in euros", relevant: ["get_exchange_rate", "convert_currency"] },
      { id: "q3", query: "monthly house loan payment", relevant: ["calculate_mortgage"] },
      { id: "q4", query: "what time is it in Tokyo", relevant: ["get_timezone"] },
    ].map((q) => JSON.stringify(q)).join("\n"));
    const { page, seen } = await newPage(openUrl);
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(request.url());
    });
    await page.goto(`${openUrl}/#/c/weather/eval`);
    await page.getByLabel("Labelled queries").waitFor();
    const beforeRun = scripts.length;
    await page.getByLabel("Labelled queries").setInputFiles(queries);
    await page.getByRole("button", { name: "Run eval" }).click();
    await page.locator("table.metrics tbody tr").first().waitFor();
    assert.ok(scripts.length > beforeRun, "the charts' code loads only when an eval runs, not with the first page");
    assert.equal(await page.locator("table.metrics tbody tr").count(), 4);
    for (const chart of ["metrics", "recall", "latency"]) {
      const inked = await page.locator(`figure[data-chart="${chart}"] canvas`).evaluate((canvas: HTMLCanvasElement) => {
        const { data } = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
        return n;
      });
      assert.ok(inked > 1000, `${chart}: ${inked} painted pixels`);
    }
    const why = page.locator("button.why").first();
    if (await why.count()) {
      await why.click();
      await page.locator("tr.details .explanation").first().waitFor();
    }
    await screenshot(page, "console-eval");
    assert.deepEqual(seen.outside, []);
    assert.deepEqual(seen.errors, []);
    assert.deepEqual(seen.failed, []);
    await page.close();
  });
  it("curation: saving synonyms and a pinned rule changes the results shown, with what moved them", async () => {
    const { page, seen } = await newPage(openUrl);
    await page.goto(`${openUrl}/#/c/weather/curation`);
    await page.locator("#curation-query").fill("umbrella");
    await page.locator("#curation-query").press("Enter");
    await page.locator("#curation-synonyms").fill(JSON.stringify({ oneWay: { umbrella: ["forecast"] } }));
    await page.getByRole("button", { name: "Save synonyms" }).click();
    await page.locator(".curation-results li").first().waitFor();
    assert.match(await page.locator(".curation-results li").first().innerText(), /get_forecast.*synonyms: umbrella → forecast/);
    await page.locator("#curation-rules").fill(JSON.stringify({ rules: [{ query: "umbrella*", pin: ["get_timezone"] }] }));
    await page.getByRole("button", { name: "Save rules" }).click();
    await page.locator(".curation-results li", { hasText: "pinned by umbrella*" }).waitFor();
    assert.match(await page.locator(".curation-results li").first().innerText(), /get_timezone.*pinned by umbrella\*/);
    await screenshot(page, "console-curation");
    assert.deepEqual(seen.outside, []);
    assert.deepEqual(seen.errors, []);
  });
});
