/**
 * Each upstream request gets its own abort signal (src/mcp/request-signal.ts): the transport's shared signal holds one
 * listener however many requests ran or run at once, abort still reaches a streaming body, a settled request is let
 * go, and many calls through a real
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

  it("holds one listener on the shared signal however many requests it saw, where plain fetch leaves one per request", async () => {
    const shared = new AbortController();
    const wrapped = perRequestSignalFetch();
    for (let i = 0; i < 50; i++) assert.deepEqual(await (await wrapped(`${url}/json`, { signal: shared.signal })).json(), { ok: true });
    assert.equal(abortListeners(shared.signal), 1);

    const plain = new AbortController();
    for (let i = 0; i < 50; i++) await (await fetch(`${url}/json`, { signal: plain.signal })).json();
    // Node's fetch removes its listener only when the request is garbage collected: most of them are still there.
    assert.ok(abortListeners(plain.signal) > 1, "plain fetch is expected to leave listeners (the bug this module avoids)");
  });

  it("holds one listener with 30 streams in flight at once, warns of nothing, and aborts them all", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      const shared = new AbortController();
      const wrapped = perRequestSignalFetch();
      const readers = await Promise.all(Array.from({ length: 30 }, async () => (await wrapped(`${url}/stream`, { signal: shared.signal })).body!.getReader()));
      for (const reader of readers) assert.match(new TextDecoder().decode((await reader.read()).value), /first/);
      assert.equal(abortListeners(shared.signal), 1);
      shared.abort(new Error("transport closed"));
      for (const reader of readers) await assert.rejects(reader.read());
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    assert.deepEqual(warnings.filter((name) => name === "MaxListenersExceededWarning"), []);
  });

  it("keeps a streaming body abortable through the shared signal", async () => {
    const shared = new AbortController();
    const seen = capturing();
    const response = await perRequestSignalFetch(seen.fetch)(`${url}/stream`, { signal: shared.signal });
    const reader = response.body!.getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /first/);
    shared.abort(new Error("transport closed"));
    await assert.rejects(reader.read());
    assert.equal(seen.signals[0].aborted, true);
  });

  it("lets go of a request once its body is read, cancelled unread, or it fails: a later abort no longer reaches it", async () => {
    const shared = new AbortController();
    const seen = capturing();
    const wrapped = perRequestSignalFetch(seen.fetch);
    await (await wrapped(`${url}/json`, { signal: shared.signal })).json();
    await (await wrapped(`${url}/json`, { signal: shared.signal })).body?.cancel();
    await assert.rejects(wrapped("http://127.0.0.1:1/", { signal: shared.signal }));
    shared.abort(new Error("transport closed"));
    assert.equal(seen.signals.length, 3);
    assert.deepEqual(seen.signals.map((signal) => signal.aborted), [false, false, false]);
  });
});

/** The global fetch, keeping the signal each request was given. */
function capturing(): { fetch: (url: string | URL, init?: RequestInit) => Promise<Response>; signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  return {
    signals,
    fetch: (url, init) => {
      signals.push(init!.signal!);
      return fetch(url, init);
    },
  };
}

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
