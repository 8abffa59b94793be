import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { launchChromium, noBrowser, screenshot, watchPage } from "../helpers/browser.js";
import { runCli } from "../helpers/cli.js";
import { fixture } from "../helpers/files.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const dir = makeTempDir("toolsearch-report-");
const reportPath = join(dir, "report.html");
const engines = ["bm25", "regex", "semantic", "hybrid"];

before(() => {
  const result = runCli([
    "eval", "--catalog", fixture("embeddings-tools.json"), "--queries", fixture("embeddings-queries.jsonl"),
    "--engine", engines.join(","), "--report", reportPath, "--cache", join(dir, "cache.sqlite"), "--json",
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /report written to/);
  assert.deepEqual(Object.keys(JSON.parse(result.stdout).engines), engines, "--json output is unchanged by --report");
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe("eval --report: one self-contained HTML file", () => {
  it("has its script, style and data inline, and nothing that could fetch from a network", () => {
    const html = readFileSync(reportPath, "utf8");
    assert.match(html, /<script type="application\/json" id="report-data">/);
    assert.doesNotMatch(html, /<script[^>]+src=/i, "no external script");
    assert.doesNotMatch(html, /<link[^>]+href=/i, "no external stylesheet");
    const fetching = [
      /\b(?:src|href|action|poster|data)\s*=\s*["']?\s*(?:https?:)?\/\//gi,
      /\burl\(\s*["']?\s*(?:https?:)?\/\//gi,
      /\bimport\s*\(\s*["'`](?:https?:)?\/\//gi,
      /\bimport\s+[^;]*?from\s*["'`](?:https?:)?\/\//gi,
      /\bfetch\s*\(\s*["'`]https?:/gi,
      /@import/gi,
    ];
    for (const pattern of fetching) assert.deepEqual(html.match(pattern), null, `found ${pattern}`);
  });

  it("keeps the data of every engine: metrics, recall@1…10, latency histograms, missed queries with explanations", () => {
    const html = readFileSync(reportPath, "utf8");
    const json = html.match(/<script type="application\/json" id="report-data">(.*?)<\/script>/s)![1];
    const data = JSON.parse(json);
    assert.deepEqual(data.engines, engines);
    for (const engine of engines) {
      assert.equal(data.recall_at_k[engine].length, 10);
      for (let k = 1; k < 10; k++) assert.ok(data.recall_at_k[engine][k] >= data.recall_at_k[engine][k - 1], "recall@k never falls as k grows");
      assert.equal(data.latency.engines[engine].counts.reduce((a: number, b: number) => a + b, 0), data.queries);
    }
    assert.ok(data.missed.length > 0, "the fixture queries include misses");
    const withWhy = data.missed.filter((m: { explanations?: object }) => m.explanations);
    assert.ok(withWhy.length > 0);
  });

  it("opens in Chromium with no request leaving file://, draws each chart, and links each miss to its explanation", { skip: noBrowser }, async () => {
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
      const seen = watchPage(page, ["file://"]);
      await page.goto(`file://${reportPath}`);
      for (const chart of ["metrics", "recall", "latency"]) {
        const painted = await page.locator(`figure[data-chart="${chart}"] canvas`).evaluate((canvas: HTMLCanvasElement) => {
          const context = canvas.getContext("2d")!;
          const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
          let inked = 0;
          for (let i = 3; i < data.length; i += 4) if (data[i] > 0) inked++;
          return { width: canvas.width, height: canvas.height, inked };
        });
        assert.ok(painted.width > 100 && painted.height > 100, `${chart}: canvas ${painted.width}×${painted.height}`);
        assert.ok(painted.inked > 1000, `${chart}: only ${painted.inked} painted pixels`);
      }
      assert.equal(await page.locator("table.metrics tbody tr").count(), engines.length);
      const firstWhy = page.locator("a.why").first();
      const href = await firstWhy.getAttribute("href");
      await firstWhy.click();
      const details = page.locator(`tr[id="${href!.slice(1)}"] .explanation`);
      await details.first().waitFor();
      assert.match(await details.first().innerText(), /ranks #\d+|does not match/);
      await screenshot(page, "report");
      // A link straight to an explanation opens it on load.
      const direct = await browser.newPage({ viewport: { width: 1366, height: 900 } });
      await direct.goto(`file://${reportPath}${href}`);
      await direct.locator(`tr[id="${href!.slice(1)}"] .explanation`).first().waitFor();
      await direct.close();
      assert.deepEqual(seen.outside, []);
      assert.deepEqual(seen.errors, []);
    } finally {
      await browser?.close();
    }
  });
});
