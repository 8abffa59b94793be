/**
 * Graceful drain of a real `toolsearch serve` process over real HTTP on loopback (src/ops/drain.ts): on SIGTERM
 * `/readyz` turns 503 at once while other requests are still served, a write in flight and an MCP call in flight
 * finish, the process exits 0 and the write is in the store; a second signal exits at once; the shutdown timeout
 * bounds a request that never ends.
 */
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { writeFileSync } from "node:fs";
import { rmSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { openStore } from "../../src/store/open.js";
import { serverScript, textOf } from "../mcp/helpers.js";
import { type ServeProcess, startServe, tempDir, waitReady } from "../server/helpers.js";

const dirs: string[] = [];
const running = new Set<ServeProcess>();
after(async () => {
  for (const p of running) await p.stop("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function serve(args: string[]): Promise<{ p: ServeProcess; home: string }> {
  const home = tempDir();
  dirs.push(home);
  const p = await startServe(["--no-auth", ...args], { TOOLSEARCH_HOME: home });
  running.add(p);
  await waitReady(p.url);
  return { p, home };
}

const tool = (name: string) => ({ name, description: `Does ${name}.`, input_schema: { type: "object" } });

/** Starts a PUT whose body is sent in two halves: the second when `finish` is called. Resolves with the status. */
function slowPut(url: string, body: string): { answer: Promise<number>; finish: () => void } {
  const target = new URL(url);
  const half = Math.floor(body.length / 2);
  let finish = () => {};
  const answer = new Promise<number>((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: "PUT", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.write(body.slice(0, half));
    finish = () => req.end(body.slice(half));
  });
  return { answer, finish };
}

async function statusOf(url: string): Promise<number | "refused"> {
  try {
    const response = await fetch(url);
    await response.arrayBuffer();
    return response.status;
  } catch {
    return "refused";
  }
}

describe("serve on SIGTERM", () => {
  it("answers /readyz 503 at once, keeps serving, lets a write in flight finish, keeps it, and exits 0", async () => {
    const { p, home } = await serve(["--drain-seconds", "2"]);
    const body = JSON.stringify({ kind: "tools", tools: Array.from({ length: 50 }, (_, i) => tool(`t${i}`)) });
    const put = slowPut(`${p.url}/v1/collections/late`, body);
    await new Promise((resolve) => setTimeout(resolve, 200));
    p.child.kill("SIGTERM");
    // The balancer's view: not ready from the first signal on, while the process still answers everything else.
    let ready: number | "refused" = 200;
    for (let i = 0; i < 50 && ready === 200; i++) ready = await statusOf(`${p.url}/readyz`);
    assert.equal(ready, 503);
    assert.equal(await statusOf(`${p.url}/healthz`), 200);
    assert.equal(await statusOf(`${p.url}/v1/collections`), 200);
    put.finish();
    assert.equal(await put.answer, 201);
    assert.equal(await p.exited, 0);
    running.delete(p);
    assert.match(p.stderr(), /SIGTERM: stopping/);
    const store = await openStore(join(home, "store.sqlite"));
    assert.equal((await store.getCollection("late"))?.size, 50);
    await store.close();
  });

  it("lets an MCP call_tool in flight finish before it stops", async () => {
    const home = tempDir();
    dirs.push(home);
    const config = join(home, "slow.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [serverScript("server-everything")] } } }));
    const { p } = await serve(["--drain-seconds", "1", "--mcp-config", config]);
    const client = new Client({ name: "drain-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${p.url}/mcp/slow`)));
    const call = client.callTool({ name: "call_tool", arguments: { name: "everything__trigger-long-running-operation", arguments: { duration: 3, steps: 3 } } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    p.child.kill("SIGTERM");
    const result = await call;
    assert.notEqual(result.isError, true, textOf(result));
    assert.match(textOf(result), /Long running operation completed/i);
    assert.equal(await p.exited, 0);
    running.delete(p);
    await client.close().catch(() => undefined);
  });

  it("exits at once on a second signal", async () => {
    const { p } = await serve(["--drain-seconds", "60"]);
    p.child.kill("SIGTERM");
    let ready: number | "refused" = 200;
    for (let i = 0; i < 50 && ready === 200; i++) ready = await statusOf(`${p.url}/readyz`);
    assert.equal(ready, 503);
    p.child.kill("SIGTERM");
    // 128 + 15: only the second-signal path exits this way (a drained exit is 0, the timeout's is 1).
    assert.equal(await p.exited, 143);
    running.delete(p);
  });

  it("cuts a request that never ends at --shutdown-timeout and still exits 0 after closing the store", async () => {
    const { p } = await serve(["--drain-seconds", "0", "--shutdown-timeout", "2"]);
    const put = slowPut(`${p.url}/v1/collections/never`, JSON.stringify({ kind: "tools", tools: [tool("a")] }));
    const outcome = put.answer.then((status) => status, () => "cut" as const);
    await new Promise((resolve) => setTimeout(resolve, 200));
    p.child.kill("SIGTERM");
    assert.equal(await p.exited, 0);
    running.delete(p);
    assert.equal(await outcome, "cut");
    assert.match(p.stderr(), /still in flight at the end of the shutdown time: cutting them/);
  });
});
