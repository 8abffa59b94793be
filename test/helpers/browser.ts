/**
 * Real headless Chromium (Debian's `chromium`, installed by .ci/run when missing) driven by playwright-core, and
 * screenshots under `.screenshots/` (git-ignored) for a person to look at.
 */
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
/** Why browser tests skip, or undefined when they can run. */
export const noBrowser = existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing (apt-get install -y chromium)`;

const SHOTS = fileURLToPath(new URL("../../.screenshots/", import.meta.url));

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
}

/** A full-page screenshot at `.screenshots/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
}

/**
 * Collects every request a page makes that is not to one of the allowed URL prefixes, script errors, and answers
 * of 400 and above (`failed`: "status url"; a test decides which it expects, such as the 401 before a key).
 */
export function watchPage(page: Page, allowed: string[]): { outside: string[]; errors: string[]; failed: string[] } {
  const seen = { outside: [] as string[], errors: [] as string[], failed: [] as string[] };
  page.on("response", (response) => {
    if (response.status() >= 400) seen.failed.push(`${response.status()} ${response.url()}`);
  });
  page.on("request", (request) => {
    const url = request.url();
    if (!allowed.some((prefix) => url.startsWith(prefix))) seen.outside.push(url);
  });
  page.on("pageerror", (error) => seen.errors.push(error.message));
  page.on("console", (message) => {
    // Failed loads are reported above, with their URL; the console's copy of them says less.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) seen.errors.push(message.text());
  });
  return seen;
}
