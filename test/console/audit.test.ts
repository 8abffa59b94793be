/**
 * The console's audit log page in Chromium, over a real service with auditing on: a `call_tool` through the SDK client
 * against the fixture MCP server and REST writes show up newest first with who, action, collection, tool, outcome,
 * duration and argument size; the collection, who and since filters and the Older/Newer pages ask `GET /v1/audit`;
 * a key that is not an admin key is told so. Screenshot: `.screenshots/console-audit.png`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser, Page } from "playwright-core";
import { openStore } from "../../src/store/open.js";
import type { AuditRecord, Store } from "../../src/store/types.js";
import { AuditLog } from "../../src/trust/audit.js";
import { launchChromium, noBrowser, screenshot, watchPage } from "../helpers/browser.js";
import { eventually, FIXTURE_SERVER, foundNames, textOf } from "../mcp/helpers.js";
import { makeService, tempDir, type TestService, weatherTools } from "../server/helpers.js";

/** More writes than one page of the console (50 rows) holds, so paging is exercised. */
const WRITES = 55;

describe("console audit page in Chromium", { skip: noBrowser }, () => {
  let s: TestService;
  let url: string;
  let browser: Browser;
  let audit: AuditLog;
  let auditStore: Store;
  let callerId: string;

  before(async () => {
    const dir = tempDir();
    auditStore = await openStore(join(dir, "store.sqlite"));
    audit = new AuditLog(auditStore, { flushMs: 20 });
    s = await makeService({ audit }, dir);
    url = await s.app.listen({ host: "127.0.0.1", port: 0 });
    const send = (path: string, body: unknown, method = "PUT") => fetch(`${url}${path}`, { method, headers: { ...s.auth(s.keys.admin), "content-type": "application/json" }, body: JSON.stringify(body) });
    assert.equal((await send("/v1/collections/fixture", { kind: "mcp", mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER] } } })).status, 201);
    assert.equal((await send("/v1/collections/weather", { kind: "tools", tools: weatherTools() })).status, 201);
    for (let i = 0; i < WRITES; i++) {
      const res = await send(`/v1/collections/weather/tools/note_${i}`, { name: `note_${i}`, description: `Keeps note number ${i}.`, input_schema: { type: "object" } });
      assert.ok(res.ok, `write ${i}: ${res.status}`);
    }
    const client = new Client({ name: "console-audit-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp/fixture`), { requestInit: { headers: s.auth(s.keys.call) } }));
    try {
      await eventually(async () => foundNames(await client.callTool({ name: "search_tools", arguments: { query: "echo text" } })).includes("fx__echo_text"));
      assert.equal(textOf(await client.callTool({ name: "call_tool", arguments: { name: "fx__echo_text", arguments: { text: "hello" } } })), "hello");
    } finally {
      await client.close();
    }
    const log = (await (await fetch(`${url}/v1/audit?limit=5`, { headers: s.auth(s.keys.admin) })).json()) as { entries: AuditRecord[] };
    callerId = log.entries.find((e) => e.action === "call_tool")!.who;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await audit?.close();
    await auditStore?.close();
    await s?.close();
  });

  const open = async (key: string, hash: string): Promise<{ page: Page; seen: ReturnType<typeof watchPage> }> => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const seen = watchPage(page, [url]);
    await page.addInitScript((k) => sessionStorage.setItem("toolsearch.key", k), key);
    await page.goto(`${url}/#/audit${hash}`);
    return { page, seen };
  };
  const rows = (page: Page) => page.locator("table.audit tbody tr");
  const cells = async (page: Page, row: number) => (await rows(page).nth(row).locator("td").allInnerTexts()).map((t) => t.trim());

  it("lists entries newest first, filters by collection, who and since, and pages", async () => {
    const { page, seen } = await open(s.keys.admin, "");
    await rows(page).first().waitFor();
    assert.equal(await page.getByRole("link", { name: "Audit" }).getAttribute("aria-current"), "page");
    assert.deepEqual(await page.locator("table.audit thead th").allInnerTexts(), ["when", "who", "action", "collection", "tool or item", "outcome", "duration", "argument size"]);
    // Newest first: the call, then the last write.
    const call = await cells(page, 0);
    assert.deepEqual(call.slice(1, 6), [callerId, "call_tool", "fixture", "fx__echo_text", "ok"]);
    assert.match(call[6], /^\d+\.\d ms$/);
    assert.equal(call[7], `${Buffer.byteLength(JSON.stringify({ text: "hello" }))} B`);
    assert.deepEqual((await cells(page, 1)).slice(2, 6), ["put_item", "weather", `note_${WRITES - 1}`, "ok"]);
    assert.equal(await rows(page).count(), 50);
    await screenshot(page, "console-audit");

    // Paging: the older page holds the rest (55 item writes, 2 collection writes, 1 call = 58), Newer comes back.
    await page.getByRole("button", { name: "Older ›" }).click();
    await page.getByText("8 entries on page 2").waitFor();
    assert.deepEqual((await cells(page, 7)).slice(2, 5), ["put_collection", "fixture", "—"]);
    assert.equal(await page.getByRole("button", { name: "Older ›" }).isDisabled(), true);
    await page.getByRole("button", { name: "‹ Newer" }).click();
    await page.getByText("50 entries", { exact: true }).waitFor();
    assert.deepEqual((await cells(page, 0)).slice(2, 3), ["call_tool"]);

    // Filters go into the route and into the query to the service.
    await page.getByLabel("Collection").fill("fixture");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByText("2 entries", { exact: true }).waitFor();
    assert.deepEqual([(await cells(page, 0))[2], (await cells(page, 1))[2]], ["call_tool", "put_collection"]);
    assert.match(page.url(), /#\/audit\?collection=fixture$/);
    await page.getByLabel("Collection").fill("");
    await page.getByLabel("Who").fill(callerId);
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByText("1 entry", { exact: true }).waitFor();
    assert.equal((await cells(page, 0))[4], "fx__echo_text");
    await page.getByLabel("Who").fill("");
    await page.getByLabel("Since").fill(new Date(Date.now() + 3_600_000).toISOString());
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByText("No entries match.").waitFor();
    await page.getByLabel("Since").fill("1h");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByText("50 entries", { exact: true }).waitFor();

    // A bad since is the service's 400, shown with its code.
    await page.getByLabel("Since").fill("yesterday-ish");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByRole("alert").waitFor();
    assert.match(await page.getByRole("alert").innerText(), /^invalid_option/);
    assert.deepEqual(seen.outside, []);
    assert.deepEqual(seen.errors, []);
    await page.close();
  });

  it("tells a key that is not an admin key that the log is for admins", async () => {
    const { page, seen } = await open(s.keys.write, "?collection=weather");
    const alert = page.getByRole("alert");
    await alert.waitFor();
    assert.match(await alert.innerText(), /Only admin keys can read the audit log/);
    assert.equal(await rows(page).count(), 0);
    assert.deepEqual(seen.failed.map((f) => f.split(" ")[0]), ["403"]);
    assert.deepEqual(seen.errors, []);
    await page.close();
  });
});
