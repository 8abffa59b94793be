/**
 * The console's servers page in Chromium (SPEC §15): an `mcp` collection whose remote servers are OAuth-protected
 * resources of a real OpenID provider (oidc-provider on loopback; the upstream is a second service with
 * `--oauth-issuer`). Before any login both remote servers show "needs a login" with the command to run; after a real
 * `toolsearch mcp login crm --collection team --no-browser` crm shows "logged in"; once its access token expired (15 s:
 * long enough to see it logged in on a loaded machine) it shows "token expired, renews on the next call". No token ever reaches the page. Screenshots:
 * `.screenshots/console-servers.png`, `.screenshots/console-servers-expired.png`.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { SecretBox, Secrets, loadSecretKey } from "../../src/auth/secrets.js";
import { oauthOwner, type StoredTokens } from "../../src/auth/upstream-oauth.js";
import { launchChromium, noBrowser, screenshot, watchPage } from "../helpers/browser.js";
import { runCliAsync as cli } from "../helpers/cli.js";
import { startIssuer, type TestIssuer } from "../helpers/oidc.js";
import { ROOT } from "../mcp/helpers.js";
import { makeService, type TestService, weatherTools } from "../server/helpers.js";

const FIXTURE = join(ROOT, "test", "fixtures", "mcp", "fixture-server.mjs");
// The service (this process) and the login (a child) seal and open tokens with the same key.
process.env.TOOLSEARCH_SECRET_KEY = randomBytes(32).toString("hex");


describe("console servers page in Chromium", { skip: noBrowser }, () => {
  let idp: TestIssuer;
  let upstream: TestService;
  let s: TestService;
  let url: string;
  let browser: Browser;
  const servers = (c: string) => s.app.inject({ method: "GET", url: `/v1/collections/${c}/servers` });

  before(async () => {
    idp = await startIssuer([{ id: "desktop", secret: "", scope: "toolsearch:read toolsearch:call toolsearch:write toolsearch:admin", redirectUris: ["http://127.0.0.1/callback"] }], { accessTokenTTL: 15 });
    upstream = await makeService({ oauth: { issuer: idp.issuer } });
    const base = await upstream.app.listen({ port: 0, host: "127.0.0.1" });
    await upstream.app.inject({ method: "PUT", url: "/v1/collections/weather", headers: upstream.auth(upstream.keys.write), payload: { kind: "tools", tools: weatherTools() } });
    s = await makeService({ noAuth: true });
    const put = await s.app.inject({ method: "PUT", url: "/v1/collections/team", payload: { kind: "mcp", mcpServers: {
      crm: { url: `${base}/mcp/weather`, oauth: { clientId: "desktop" } },
      tickets: { url: `${base}/mcp/weather` },
      local: { command: process.execPath, args: [FIXTURE] },
    } } });
    assert.equal(put.statusCode, 201, put.body);
    // The gateway's first connections meet the 401s: both remote servers then want a login.
    for (let i = 0; i < 200; i++) {
      const answer = (await servers("team")).json() as { servers: { login: string }[] };
      if (answer.servers.filter((x) => x.login === "needs_login").length === 2) break;
      await sleep(100);
    }
    url = await s.app.listen({ host: "127.0.0.1", port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await upstream?.close();
    await idp?.close();
  });

  const rowText = async (page: Page, server: string) => (await page.locator(`tr[data-server="${server}"]`).innerText()).replace(/\s+/g, " ");

  it("shows which servers need a login, then logged in, then an expired token; never a token", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 600 } });
    const seen = watchPage(page, [url]);
    await page.goto(`${url}/#/c/team/servers`);
    await page.locator('tr[data-server="crm"]').waitFor();
    assert.equal(await page.getByRole("link", { name: "Servers" }).getAttribute("aria-current"), "page");
    assert.match(await rowText(page, "crm"), /needs a login.*toolsearch mcp login crm --collection team/);
    assert.match(await rowText(page, "tickets"), /needs a login/);
    assert.match(await rowText(page, "local"), /stdio.*no login \(local command\)/);
    await screenshot(page, "console-servers-login");

    const login = await cli(["mcp", "login", "crm", "--collection", "team", "--store", join(s.dir, "store.sqlite"), "--no-browser"]);
    assert.equal(login.code, 0, login.stderr);
    assert.equal(idp.grants.authorization_code, 1);
    await page.reload();
    await page.locator('tr[data-server="crm"][data-login="logged_in"]').waitFor();
    assert.match(await rowText(page, "crm"), /logged in/);
    assert.doesNotMatch(await rowText(page, "crm"), /mcp login/, "a logged-in server names no login command");
    assert.match(await rowText(page, "tickets"), /needs a login/);
    await screenshot(page, "console-servers");

    const tokens = (await new Secrets(s.store, new SecretBox(loadSecretKey())).get<StoredTokens>(oauthOwner("collection:team", "crm"), "tokens"))!;
    while (Date.now() / 1000 <= tokens.expires_at!) await sleep(200);
    await page.reload();
    await page.locator('tr[data-server="crm"][data-login="expired"]').waitFor();
    assert.match(await rowText(page, "crm"), /token expired, renews on the next call/);
    await screenshot(page, "console-servers-expired");
    const html = await page.content();
    assert.ok(!html.includes(tokens.access_token) && !html.includes(tokens.refresh_token!), "no token on the page");
    assert.deepEqual(seen.outside, []);
    assert.deepEqual(seen.errors, []);
    await page.close();
  });

  it("the servers route is for mcp collections only, and admin only", async () => {
    await s.app.inject({ method: "PUT", url: "/v1/collections/plain", payload: { kind: "tools", tools: weatherTools() } });
    const answer = await servers("plain");
    assert.equal(answer.statusCode, 409);
    assert.equal((answer.json() as { error: { code: string } }).error.code, "conflict");
    const read = await upstream.app.inject({ method: "GET", url: "/v1/collections/weather/servers", headers: upstream.auth(upstream.keys.read) });
    assert.equal(read.statusCode, 403);
  });
});
