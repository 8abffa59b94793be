/**
 * `toolsearch serve` as a real process over real HTTP: keys from the CLI, auth, restart, graceful SIGTERM, and
 * durability under SIGKILL (every acknowledged write survives; a batch is all there or not at all).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { after, test } from "node:test";
import { rmSync, statSync } from "node:fs";
import { openStore } from "../../src/store/open.js";
import { MAIN, type ServeProcess, startServe, tempDir, waitReady, WEATHER_TOOLS } from "./helpers.js";

const running = new Set<ServeProcess>();
const dirs: string[] = [];
after(async () => {
  for (const p of running) await p.stop("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], { encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0", ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function serve(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const p = await startServe(args, env);
  running.add(p);
  await waitReady(p.url);
  return p;
}

async function stop(p: ServeProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<number | string> {
  const code = await p.stop(signal);
  running.delete(p);
  return code;
}

function home(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}

function walSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

const tool = (name: string) => ({ name, description: `Tool number ${name}.`, input_schema: { type: "object", properties: {} } });

test("--no-auth is refused off loopback, saying why", () => {
  const result = cli(["serve", "--no-auth", "--host", "0.0.0.0", "--port", "0"], { TOOLSEARCH_HOME: home() });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--no-auth is refused on --host 0\.0\.0\.0: without keys anyone/);
});

test("keys from the CLI, Bearer auth over HTTP, revocation, and a restart that keeps everything", async () => {
  const TOOLSEARCH_HOME = home();
  const created = cli(["keys", "create", "--scope", "write", "--label", "ci", "--json"], { TOOLSEARCH_HOME });
  assert.equal(created.code, 0, created.stderr);
  const { id, key, scope } = JSON.parse(created.stdout) as { id: string; key: string; scope: string };
  assert.equal(scope, "write");
  const listed = cli(["keys", "list", "--json"], { TOOLSEARCH_HOME });
  assert.ok(!listed.stdout.includes(key), "keys list never shows a key");
  assert.deepEqual((JSON.parse(listed.stdout) as { keys: { id: string }[] }).keys.map((k) => k.id), [id]);

  let p = await serve(["--catalog", WEATHER_TOOLS], { TOOLSEARCH_HOME });
  const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  assert.equal((await fetch(`${p.url}/v1/collections`)).status, 401);
  const search = await fetch(`${p.url}/v1/collections/weather-finance/search`, { method: "POST", headers: auth, body: JSON.stringify({ query: "exchange rate" }) });
  assert.equal(search.status, 200);
  assert.equal(((await search.json()) as { results: { name: string }[] }).results[0].name, "get_exchange_rate");
  const put = await fetch(`${p.url}/v1/collections/weather-finance/tools/aurora_alert`, { method: "PUT", headers: auth, body: JSON.stringify(tool("aurora_alert")) });
  assert.equal(put.status, 201);

  assert.equal(await stop(p), 0, "SIGTERM is a clean exit");
  p = await serve(["--catalog", WEATHER_TOOLS], { TOOLSEARCH_HOME });
  assert.match(p.stderr(), /weather-finance is already in the store; kept it/);
  const again = await fetch(`${p.url}/v1/collections/weather-finance/tools/aurora_alert`, { headers: auth });
  assert.equal(again.status, 200, "the write survived the restart and the seed file did not overwrite it");

  assert.equal(cli(["keys", "revoke", id], { TOOLSEARCH_HOME }).code, 0);
  assert.equal((await fetch(`${p.url}/v1/collections`, { headers: auth })).status, 401, "revoked in another process: refused at once");
  assert.equal(cli(["keys", "revoke", id], { TOOLSEARCH_HOME }).code, 1);
  await stop(p);
});

test("SIGTERM lets a request in flight finish before the store closes", async () => {
  const TOOLSEARCH_HOME = home();
  const p = await serve(["--no-auth", "--drain-seconds", "0"], { TOOLSEARCH_HOME });
  const url = new URL(`${p.url}/v1/collections/late`);
  const body = JSON.stringify({ kind: "tools", tools: Array.from({ length: 200 }, (_, i) => tool(`t${i}`)) });
  const half = Math.floor(body.length / 2);
  const answer = new Promise<number>((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: "PUT", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.write(body.slice(0, half));
    // The request is in flight (half its body sent) when SIGTERM arrives; then the rest follows.
    setTimeout(() => {
      p.child.kill("SIGTERM");
      setTimeout(() => req.end(body.slice(half)), 300);
    }, 300);
  });
  assert.equal(await answer, 201);
  // A second SIGTERM would exit at once: wait for the first one's graceful exit.
  assert.equal(await p.exited, 0);
  running.delete(p);
  const store = await openStore(join(TOOLSEARCH_HOME, "store.sqlite"));
  assert.equal((await store.getCollection("late"))?.size, 200);
  await store.close();
});

test("kill -9 during a stream of writes and a large batch: every acknowledged write is there, no batch is half there", async (t) => {
  const TOOLSEARCH_HOME = home();
  const headers = { "content-type": "application/json" };
  const acknowledged = new Set<string>();
  const batches: Array<{ keys: string[]; acknowledged: boolean; midTransaction: boolean }> = [];
  for (let round = 0; round < 2; round++) {
    const p = await serve(["--no-auth", "--rate-limit", "0"], { TOOLSEARCH_HOME });
    if (round === 0) {
      const created = await fetch(`${p.url}/v1/collections/durable`, { method: "PUT", headers, body: JSON.stringify({ kind: "tools", tools: [] }) });
      assert.equal(created.status, 201);
    }
    let killed = false;
    // Four writers, each PUTting tools one after another and recording what was acknowledged.
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; !killed; i++) {
        const name = `r${round}_w${w}_${i}`;
        try {
          const response = await fetch(`${p.url}/v1/collections/durable/tools/${name}`, { method: "PUT", headers, body: JSON.stringify(tool(name)) });
          if (response.status === 201) acknowledged.add(name);
          else if (!killed) assert.fail(`unexpected ${response.status}`);
        } catch {
          return; // the connection died with the process
        }
      }
    });
    // A large batch (20,000 tools, one transaction). Round 0 kills the process in the middle of that transaction: once
    // the WAL file grows by 1 MB (SQLite spills the uncommitted batch's pages there) while the batch is unanswered.
    // Round 1 kills it just after the batch was acknowledged, with the single writes still going.
    const keys = Array.from({ length: 20_000 }, (_, i) => `batch${round}_${i}`);
    const batch = { keys, acknowledged: false, midTransaction: false };
    batches.push(batch);
    const wal = join(TOOLSEARCH_HOME, "store.sqlite-wal");
    const walAtStart = walSize(wal);
    const batchDone = fetch(`${p.url}/v1/collections/durable/batch`, { method: "POST", headers, body: JSON.stringify({ upsert: keys.map(tool) }) })
      .then((r) => (batch.acknowledged = r.status === 200))
      .catch(() => undefined);
    for (let waited = 0; waited < 20_000; waited += 5) {
      if (round === 0 && !batch.acknowledged && walSize(wal) > walAtStart + 1024 * 1024) {
        batch.midTransaction = true;
        break;
      }
      if (round === 1 && batch.acknowledged) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    killed = true;
    assert.equal(await stop(p, "SIGKILL"), "SIGKILL");
    await Promise.all([...writers, batchDone]);
  }
  assert.ok(acknowledged.size > 0, "some writes were acknowledged before the kill");

  const store = await openStore(join(TOOLSEARCH_HOME, "store.sqlite"));
  try {
    const present = new Set((await store.listItems("durable")).map((i) => i.key));
    const lost = [...acknowledged].filter((k) => !present.has(k));
    assert.deepEqual(lost, [], "acknowledged writes lost");
    for (const batch of batches) {
      const count = batch.keys.filter((k) => present.has(k)).length;
      t.diagnostic(`batch of ${batch.keys.length}: ${count ? "all present" : "absent"}${batch.acknowledged ? " (acknowledged)" : ""}${batch.midTransaction ? " (killed mid-transaction)" : ""}; ${acknowledged.size} single writes acknowledged`);
      assert.ok(count === 0 || count === batch.keys.length, `a batch is ${count}/${batch.keys.length} present`);
      if (batch.acknowledged) assert.equal(count, batch.keys.length, "an acknowledged batch is whole");
    }
  } finally {
    await store.close();
  }
  // And the service restarts on that store and serves it.
  const p = await serve(["--no-auth"], { TOOLSEARCH_HOME });
  const answer = (await (await fetch(`${p.url}/v1/collections/durable`)).json()) as { size: number };
  assert.ok(answer.size >= acknowledged.size);
  await stop(p);
});

test("a port in use is a clear error, not a stack trace", async () => {
  const TOOLSEARCH_HOME = home();
  const p = await serve(["--no-auth"], { TOOLSEARCH_HOME });
  const port = new URL(p.url).port;
  const second = cli(["serve", "--no-auth", "--port", port], { TOOLSEARCH_HOME });
  assert.equal(second.code, 1);
  // Off a terminal the logs are JSON on stdout, the error included.
  const output = `${second.stderr}${second.stdout}`;
  assert.match(output, /cannot listen on 127\.0\.0\.1:\d+: the port is in use/);
  assert.doesNotMatch(output, /\n\s+at /);
  await stop(p);
});
