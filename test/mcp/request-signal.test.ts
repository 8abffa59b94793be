/**
 * Each upstream request gets its own abort signal (src/mcp/request-signal.ts): the transport's shared signal holds a
 * listener only while a request is in flight, abort still reaches a streaming body, and many calls through a real
 * Streamable HTTP upstream (server-everything) leave the listener count on the transport's signal bounded.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { getEventListeners } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { perRequestSignalFetch } from "../../src/mcp/request-signal.js";
import { Upstream } from "../../src/mcp/upstream.js";
import { freePort, serverScript, waitForLine } from "./helpers.js";

const abortListeners = (signal: AbortSignal) => getEventListeners(signal, "abort").length;

describe("perRequestSignalFetch", () => {
  let server: Server;
  let url: string;
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === "/stream") {
        // A body that never ends by itself: only an abort stops it.
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("data: first\n\n");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it("leaves no listener on the shared signal once each response is read, where plain fetch leaves one per request", async () => {
    const shared = new AbortController();
    const wrapped = perRequestSignalFetch();
    for (let i = 0; i < 50; i++) assert.deepEqual(await (await wrapped(`${url}/json`, { signal: shared.signal })).json(), { ok: true });
    assert.equal(abortListeners(shared.signal), 0);

    const plain = new AbortController();
    for (let i = 0; i < 50; i++) await (await fetch(`${url}/json`, { signal: plain.signal })).json();
    // Node's fetch removes its listener only when the request is garbage collected: most of them are still there.
    assert.ok(abortListeners(plain.signal) > 0, "plain fetch is expected to leave listeners (the bug this module avoids)");
  });

  it("keeps a streaming body abortable through the shared signal, then lets go of its listener", async () => {
    const shared = new AbortController();
    const response = await perRequestSignalFetch()(`${url}/stream`, { signal: shared.signal });
    const reader = response.body!.getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /first/);
    assert.equal(abortListeners(shared.signal), 1);
    shared.abort(new Error("transport closed"));
    await assert.rejects(reader.read());
    assert.equal(abortListeners(shared.signal), 0);
  });

  it("lets go of its listener when the body is cancelled unread and when the request fails", async () => {
    const shared = new AbortController();
    const response = await perRequestSignalFetch()(`${url}/json`, { signal: shared.signal });
    await response.body?.cancel();
    assert.equal(abortListeners(shared.signal), 0);
    await assert.rejects(perRequestSignalFetch()("http://127.0.0.1:1/", { signal: shared.signal }));
    assert.equal(abortListeners(shared.signal), 0);
  });
});

describe("an HTTP upstream under many calls", () => {
  let everything: ChildProcess;
  let upstream: Upstream;
  before(async () => {
    const port = await freePort();
    everything = spawn(process.execPath, [serverScript("server-everything"), "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
    await waitForLine(everything, /listening on port/);
    upstream = new Upstream("everything", { url: `http://127.0.0.1:${port}/mcp` }, () => {}, { log: () => {} });
  });
  after(async () => {
    await upstream?.close();
    everything?.kill("SIGTERM");
  });

  it("keeps the listener count on the transport's signal bounded over 300 sequential calls", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    let most = 0;
    try {
      for (let i = 0; i < 300; i++) {
        const result = await upstream.callTool("echo", { message: `call ${i}` });
        assert.notEqual(result.isError, true);
        most = Math.max(most, abortListeners(transportSignal(upstream)));
      }
    } finally {
      process.off("warning", onWarning);
    }
    // The standalone SSE stream (GET) holds one while it is open; nothing accumulates per call.
    assert.ok(most <= 2, `at most 2 listeners expected, saw ${most}`);
    assert.equal(warnings.filter((name) => name === "MaxListenersExceededWarning").length, 0);
  });
});

/** The connection-wide signal the SDK's transport passes to every fetch (private; read for this test). */
function transportSignal(upstream: Upstream): AbortSignal {
  const client = (upstream as unknown as { client: { transport: { _abortController: AbortController } } }).client;
  return client.transport._abortController.signal;
}
