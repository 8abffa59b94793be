/**
 * Traces from a real `toolsearch serve` process (src/ops/tracing.ts) to a local OTLP receiver (a plain node:http
 * server), over both OTLP/HTTP encodings: a `call_tool` on `/mcp/{c}` through the gateway into an HTTP upstream (a
 * Streamable HTTP server of the MCP SDK, in this test) gives an HTTP server span whose descendant is the upstream's
 * client span (server, tool, outcome), the upstream receives a `traceparent` of that trace, a search gives a search
 * span (engine, collection, result count) without the query text, and /metrics counts the upstream call.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { textOf } from "../mcp/helpers.js";
import { startServe, tempDir, waitReady } from "../server/helpers.js";

const QUERY = "zebracorn-private-query echo";

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
}

async function listen(server: HttpServer): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function bodyOf(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
  });
}

describe("traces over OTLP", () => {
  const dir = tempDir();
  const traceparents: string[] = [];
  let upstream: HttpServer;
  let upstreamUrl: string;

  before(async () => {
    // A stateless Streamable HTTP MCP server that notes each request's traceparent.
    upstream = createServer(async (req, res) => {
      if (req.headers.traceparent) traceparents.push(String(req.headers.traceparent));
      const server = new Server({ name: "traced", version: "1.0.0" }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "echo", description: "Echo the text back.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] }));
      server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: "text", text: `echo: ${String(request.params.arguments?.text)}` }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on("close", () => void server.close());
      await server.connect(transport);
      await transport.handleRequest(req, res);
    });
    upstreamUrl = await listen(upstream);
    writeFileSync(join(dir, "traced.json"), JSON.stringify({ mcpServers: { up: { url: `${upstreamUrl}/mcp` } } }));
  });
  after(() => {
    upstream.closeAllConnections();
    upstream.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const protocol of ["http/json", "http/protobuf"] as const) {
    it(`sends a call_tool trace with the upstream span under the HTTP span (${protocol}), and no query text`, async () => {
      const bodies: Array<{ type: string; body: Buffer }> = [];
      const receiver = createServer(async (req, res) => {
        bodies.push({ type: String(req.headers["content-type"]), body: await bodyOf(req) });
        res.writeHead(200, { "content-type": String(req.headers["content-type"]) });
        res.end(protocol === "http/json" ? "{}" : "");
      });
      const receiverUrl = await listen(receiver);
      const home = tempDir();
      traceparents.length = 0;
      const p = await startServe(["--no-auth", "--drain-seconds", "0", "--mcp-config", join(dir, "traced.json")], {
        TOOLSEARCH_HOME: home,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_BSP_SCHEDULE_DELAY: "100",
      });
      try {
        await waitReady(p.url);
        const client = new Client({ name: "trace-test", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${p.url}/mcp/traced`)));
        const result = await client.callTool({ name: "call_tool", arguments: { name: "up__echo", arguments: { text: "hello" } } });
        assert.match(textOf(result), /echo: hello/);
        await client.close();
        const search = await fetch(`${p.url}/v1/collections/traced/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: QUERY }) });
        assert.equal(search.status, 200);
        const metrics = await (await fetch(`${p.url}/metrics`)).text();
        assert.match(metrics, /toolsearch_upstream_call_duration_seconds_count\{server="up",outcome="ok"\} 1/);
        assert.match(metrics, /toolsearch_http_request_duration_seconds_count\{route="\/v1\/collections\/:c\/search",method="POST",status="200"\} 1/);
      } finally {
        p.child.kill("SIGTERM");
        assert.equal(await p.exited, 0);
        receiver.close();
        rmSync(home, { recursive: true, force: true });
      }
      // Shutdown exported every span still queued.
      assert.ok(bodies.length > 0, "the receiver got no export");
      assert.ok(bodies.every((b) => b.type.startsWith(protocol === "http/json" ? "application/json" : "application/x-protobuf")), bodies.map((b) => b.type).join());
      assert.ok(bodies.every((b) => !b.body.includes("zebracorn")), "the query text must not be in any span");
      const spans = bodies.flatMap((b) => (protocol === "http/json" ? spansFromJson(b.body) : spansFromProtobuf(b.body)));
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const call = spans.find((s) => s.name === "call_tool up");
      assert.ok(call, `no call_tool span among ${spans.map((s) => s.name).join(", ")}`);
      assert.equal(call.attributes["toolsearch.tool"], "echo");
      assert.equal(call.attributes["toolsearch.outcome"], "ok");
      const ancestors: ReceivedSpan[] = [];
      for (let parent = byId.get(call.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) ancestors.push(parent);
      const http = ancestors.find((s) => s.name === "POST /mcp/:c");
      assert.ok(http, `the call_tool span's ancestors are ${ancestors.map((s) => s.name).join(" < ") || "none"}`);
      assert.equal(http.traceId, call.traceId);
      assert.equal(http.attributes["http.response.status_code"], 200);
      // The upstream got the trace on: one of its requests carried a traceparent of this trace.
      assert.ok(traceparents.some((t) => t.split("-")[1] === call.traceId), `traceparents received: ${traceparents.join(", ") || "none"}`);
      const searchSpan = spans.find((s) => s.name === "search");
      assert.ok(searchSpan);
      assert.deepEqual([searchSpan.attributes["toolsearch.collection"], searchSpan.attributes["toolsearch.engine"], typeof searchSpan.attributes["toolsearch.results"]], ["traced", "bm25", "number"]);
      assert.ok(!("toolsearch.query" in searchSpan.attributes));
      assert.equal(byId.get(searchSpan.parentSpanId)?.name, "POST /v1/collections/:c/search");
    });
  }
});

/** Spans of an OTLP/JSON export (ids in hex). */
function spansFromJson(body: Buffer): ReceivedSpan[] {
  type Value = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
  const data = JSON.parse(body.toString()) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: Array<{ key: string; value: Value }> }> }> }> };
  return data.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)).map((span) => ({
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId ?? "",
    name: span.name,
    attributes: Object.fromEntries((span.attributes ?? []).map(({ key, value }) => [key, value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue))])),
  }));
}

/** Spans of an OTLP/protobuf export, read with a small wire-format reader (TracesData → ResourceSpans → ScopeSpans → Span). */
function spansFromProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resource of fieldsOf(body).filter((f) => f.field === 1)) {
    for (const scope of fieldsOf(resource.bytes!).filter((f) => f.field === 2)) {
      for (const span of fieldsOf(scope.bytes!).filter((f) => f.field === 2)) {
        const fields = fieldsOf(span.bytes!);
        const bytes = (n: number) => fields.find((f) => f.field === n)?.bytes ?? Buffer.alloc(0);
        const attributes: Record<string, unknown> = {};
        for (const kv of fields.filter((f) => f.field === 9)) {
          const parts = fieldsOf(kv.bytes!);
          const key = parts.find((f) => f.field === 1)!.bytes!.toString();
          const value = fieldsOf(parts.find((f) => f.field === 2)?.bytes ?? Buffer.alloc(0))[0];
          attributes[key] = value?.field === 1 ? value.bytes!.toString() : value?.field === 2 ? value.varint === 1n : value?.field === 3 ? Number(value.varint) : undefined;
        }
        spans.push({ traceId: bytes(1).toString("hex"), spanId: bytes(2).toString("hex"), parentSpanId: bytes(4).toString("hex"), name: bytes(5).toString(), attributes });
      }
    }
  }
  return spans;
}

interface WireField {
  field: number;
  bytes?: Buffer;
  varint?: bigint;
}

function fieldsOf(buffer: Buffer): WireField[] {
  const fields: WireField[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buffer[at++];
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < buffer.length) {
    const tag = Number(varint());
    const field = tag >> 3;
    const wire = tag & 7;
    if (wire === 0) fields.push({ field, varint: varint() });
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const length = Number(varint());
      fields.push({ field, bytes: buffer.subarray(at, at + length) });
      at += length;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return fields;
}
