/**
 * `toolsearch mcp --http` is a long-running endpoint, so it bounds V8's heap growth (src/ops/heap-trim.ts; the soak
 * in docs/benchmarks.md measures what that does to RSS). A stdio gateway lives as long as its one client and is left
 * as it was, and an operator's own `--heap-growing-percent` wins. The flag V8 is given is seen through a spy loaded
 * into the real CLI process (test/fixtures/v8-flag-spy.mjs).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { CLI, ROOT } from "../mcp/helpers.js";

const SPY = join(ROOT, "test", "fixtures", "v8-flag-spy.mjs");
const CATALOG = join(ROOT, "test", "fixtures", "mcp", "catalog.json");

/** Runs `toolsearch mcp --catalog … ARGS` until it is serving, then stops it; returns what it wrote on stderr. */
function runMcp(nodeFlags: string[], args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, "--import", SPY, "--import", "tsx", CLI, "mcp", "--catalog", CATALOG, ...args], { cwd: ROOT, stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/listening on/.test(stderr)) child.kill("SIGTERM");
    });
    // Over stdio the gateway serves until its client closes stdin.
    if (!args.includes("--http")) setTimeout(() => child.stdin.end(), 3000);
    child.once("error", reject);
    child.once("exit", () => resolve(stderr));
  });
}

test("mcp --http sets V8's heap growth to 20 %", async () => {
  const stderr = await runMcp([], ["--http", "0"]);
  assert.match(stderr, /v8 flag: --heap-growing-percent=20\n[\s\S]*listening on/);
});

test("mcp over stdio leaves V8's heap growth alone", async () => {
  const stderr = await runMcp([], []);
  assert.match(stderr, /toolsearch mcp: stopped/);
  assert.doesNotMatch(stderr, /heap-growing-percent/);
});

test("mcp --http keeps an operator's own --heap-growing-percent", async () => {
  const stderr = await runMcp(["--heap-growing-percent=50"], ["--http", "0"]);
  assert.match(stderr, /listening on/);
  assert.doesNotMatch(stderr, /v8 flag/);
});
