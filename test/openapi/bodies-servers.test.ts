/**
 * Non-JSON bodies (multipart with files, bytes, text) and the choice among servers (document, path and operation
 * level, variables), round-tripped against a local server built from the same spec: it routes each request to the
 * spec's operation whatever server prefix it came under, and echoes the prefix, the content type and the raw bytes.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { normalizeTools } from "../../src/catalog/load.js";
import { lintTools } from "../../src/lint/runner.js";
import { OpenApiClient } from "../../src/openapi/call.js";
import { catalogFromOpenApi } from "../../src/openapi/catalog.js";
import { rejectedError } from "../helpers/errors.js";
import { fixture } from "../helpers/files.js";

const SPEC = fixture("openapi", "uploads.yaml");

interface Echo {
  operationId: string;
  prefix: string;
  contentType: string | null;
  bytes: string;
}

/** Routes by the spec's paths under any prefix; answers what it received (the body as base64). */
async function startEchoServer(): Promise<{ port: number; requests: () => number; close: () => Promise<void> }> {
  const doc = parse(readFileSync(SPEC, "utf8")) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const routes = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).filter(([m]) => m !== "servers").map(([method, op]) => ({
    method: method.toUpperCase(), operationId: op.operationId!, pattern: new RegExp(`^(.*?)${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
  })));
  let requests = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", () => {
      requests++;
      const pathname = new URL(request.url ?? "/", "http://x").pathname;
      const route = routes.map((r) => ({ r, m: r.method === request.method ? r.pattern.exec(pathname) : null })).find((x) => x.m);
      const body: Echo | { message: string } = route
        ? { operationId: route.r.operationId, prefix: route.m![1]!, contentType: request.headers["content-type"] ?? null, bytes: Buffer.concat(chunks).toString("base64") }
        : { message: `no operation for ${request.method} ${pathname}` };
      response.writeHead(route ? 200 : 404, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const base64 = (text: string | Uint8Array) => Buffer.from(text).toString("base64");

describe("choosing among a document's servers", () => {
  it("takes the first server with its variables at their defaults, or the one named by index, URL or description", async () => {
    const plain = await catalogFromOpenApi(SPEC);
    assert.equal(plain.serverUrl, "http://127.0.0.1:9/v1");
    assert.equal(plain.tools.find((t) => t.name === "mirrorStatus")!.openapi.server, "http://127.0.0.1:9/mirror", "a path-level server");
    assert.equal(plain.tools.find((t) => t.name === "listArchive")!.openapi.server, "http://127.0.0.1:9/archive-2019", "an operation-level server");
    for (const server of ["production", 1, "https://vault.example.invalid/v1", "PRODUCTION"]) {
      assert.equal((await catalogFromOpenApi(SPEC, { server })).serverUrl, "https://vault.example.invalid/v1", String(server));
    }
    const variables = await catalogFromOpenApi(SPEC, { serverVariables: { port: "8443", version: "v2" } });
    assert.equal(variables.serverUrl, "http://127.0.0.1:8443/v2");
    assert.equal(variables.tools.find((t) => t.name === "listArchive")!.openapi.server, "http://127.0.0.1:8443/archive-2019");
  });

  it("reads a relative path- or operation-level server against the document's server", async () => {
    const doc = {
      openapi: "3.0.3", info: { title: "Relative", version: "1" }, servers: [{ url: "https://api.example.invalid/v1" }],
      paths: {
        "/a": { servers: [{ url: "/v2" }], get: { operationId: "a", responses: { 200: { description: "ok" } } } },
        "/b": { get: { operationId: "b", servers: [{ url: "beta/" }], responses: { 200: { description: "ok" } } } },
      },
    };
    const catalog = await catalogFromOpenApi(doc);
    assert.equal(catalog.plans.get("a")!.server, "https://api.example.invalid/v2");
    assert.equal(catalog.plans.get("b")!.server, "https://api.example.invalid/beta/");
    assert.equal(catalog.tools[0]!.openapi.server, "https://api.example.invalid/v2");
  });

  it("refuses a server or a variable value the document does not have, listing what it has", async () => {
    const missing = await rejectedError(catalogFromOpenApi(SPEC, { server: 5 }));
    assert.equal(missing.code, "invalid_option");
    assert.match(missing.message, /uploads\.yaml: server 5 does not exist; the document's servers are 0: http:\/\/127\.0\.0\.1:\{port\}\/\{version\} \(local\); 1: https:\/\/vault\.example\.invalid\/v1 \(production\)/);
    assert.match((await rejectedError(catalogFromOpenApi(SPEC, { server: "staging" }))).message, /no server has the URL or description "staging"/);
    assert.match((await rejectedError(catalogFromOpenApi(SPEC, { serverVariables: { version: "v3" } }))).message, /server variable version must be one of "v1", "v2" \(got "v3"\)/);
    assert.match((await rejectedError(catalogFromOpenApi(SPEC, { server: "production", serverVariables: { port: "1" } }))).message, /server variable "port" is not a variable of server https:\/\/vault\.example\.invalid\/v1/);
  });
});

describe("non-JSON request bodies, sent to a local server built from the spec", () => {
  let api: Awaited<ReturnType<typeof startEchoServer>>;
  let vault: OpenApiClient;
  before(async () => {
    api = await startEchoServer();
    vault = await OpenApiClient.fromSpec(SPEC, { serverVariables: { port: String(api.port), version: "v2" } });
  });
  after(() => api.close());

  it("imports them as tools that lint clean, with files given as base64", async () => {
    const tools = normalizeTools(vault.tools);
    assert.deepEqual(lintTools(tools).findings.filter((f) => f.severity === "error"), []);
    const upload = vault.tools.find((t) => t.name === "uploadDocument")!.input_schema as { properties: Record<string, Record<string, unknown>>; required: string[] };
    assert.deepEqual(upload.properties.file, { type: "string", contentEncoding: "base64", description: "The scanned PDF. Base64 of the file's content." });
    assert.deepEqual(upload.properties.attachments, { type: "array", items: { type: "string", contentEncoding: "base64", description: "Base64 of the file's content." } });
    assert.deepEqual(upload.required, ["title", "file"]);
    const content = vault.tools.find((t) => t.name === "replaceContent")!.input_schema as { properties: Record<string, Record<string, unknown>>; required: string[] };
    assert.equal(content.properties.body!.contentEncoding, "base64");
    assert.deepEqual(content.required, ["id", "body"]);
    assert.deepEqual(vault.catalog.skipped, []);
  });

  it("sends multipart form data: fields as text, objects as JSON, files as bytes with their part type", async () => {
    const pdf = Uint8Array.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x00, 0xff, 0x10]);
    const result = await vault.call("uploadDocument", {
      title: "Lab results", tags: ["blood", "2026"], meta: { pages: 2 }, file: base64(pdf), attachments: [base64("one"), base64("two")],
    });
    assert.equal(result.status, 200, JSON.stringify(result.body));
    const echo = result.body as Echo;
    assert.equal(echo.prefix, "/v2", "the document's server with both variables filled");
    assert.match(echo.contentType!, /^multipart\/form-data; boundary=/);
    const form = await new Response(Buffer.from(echo.bytes, "base64"), { headers: { "content-type": echo.contentType! } }).formData();
    assert.equal(form.get("title"), "Lab results");
    assert.deepEqual(form.getAll("tags"), ["blood", "2026"]);
    assert.equal(form.get("meta"), '{"pages":2}');
    const file = form.get("file") as File;
    assert.equal(file.type, "application/pdf");
    assert.equal(file.name, "file");
    assert.deepEqual(new Uint8Array(await file.arrayBuffer()), pdf);
    const attachments = form.getAll("attachments") as File[];
    assert.deepEqual(await Promise.all(attachments.map((f) => f.text())), ["one", "two"]);
    assert.equal(attachments[0]!.type, "application/octet-stream");
  });

  it("sends a multipart body kept whole (extra fields allowed) with its file fields as files", async () => {
    const schema = vault.tools.find((t) => t.name === "addPages")!.input_schema as { properties: { body: { properties: Record<string, unknown> } } };
    assert.equal((schema.properties.body.properties.page as { contentEncoding: string }).contentEncoding, "base64");
    const echo = (await vault.call("addPages", { id: "d1", body: { page: base64("page one"), note: "scanned twice" } })).body as Echo;
    const form = await new Response(Buffer.from(echo.bytes, "base64"), { headers: { "content-type": echo.contentType! } }).formData();
    assert.equal(await (form.get("page") as File).text(), "page one");
    assert.equal(form.get("note"), "scanned twice");
  });

  it("sends bytes from base64 (standard or URL-safe), and refuses text that is not base64 before sending", async () => {
    const bytes = Uint8Array.from([0xfb, 0xff, 0xbf, 0x00, 0x41]);
    for (const encoded of [Buffer.from(bytes).toString("base64"), Buffer.from(bytes).toString("base64url")]) {
      const echo = (await vault.call("replaceContent", { id: "d1", body: encoded })).body as Echo;
      assert.equal(echo.contentType, "application/octet-stream");
      assert.deepEqual(Buffer.from(echo.bytes, "base64"), Buffer.from(bytes));
    }
    const thumbnail = (await vault.call("setThumbnail", { id: "d1", body: base64("png") })).body as Echo;
    assert.equal(thumbnail.contentType, "application/octet-stream", "a wildcard type is sent as octet-stream");
    const before = api.requests();
    const refused = await rejectedError(vault.call("replaceContent", { id: "d1", body: "not base64!" }));
    assert.equal(refused.code, "invalid_arguments");
    assert.match(refused.message, /body must be base64 text \(the bytes to send\)/);
    assert.equal(api.requests(), before, "nothing was sent");
  });

  it("sends a text body as it is, with its media type", async () => {
    const echo = (await vault.call("setNote", { id: "d1", body: "Ünïcode note\nline 2" })).body as Echo;
    assert.equal(echo.contentType, "text/plain");
    assert.equal(Buffer.from(echo.bytes, "base64").toString("utf8"), "Ünïcode note\nline 2");
    assert.equal((await rejectedError(vault.call("setNote", { id: "d1", body: { not: "text" } }))).code, "invalid_arguments");
  });

  it("imports a Swagger 2.0 file upload (formData, type file) as multipart with a base64 field", async () => {
    const swagger = {
      swagger: "2.0", info: { title: "Legacy vault", version: "1" }, host: `127.0.0.1:${api.port}`, basePath: "/legacy", schemes: ["http"],
      paths: { "/documents": { post: { operationId: "legacyUpload", consumes: ["multipart/form-data"], parameters: [
        { name: "title", in: "formData", type: "string", required: true },
        { name: "file", in: "formData", type: "file", required: true, description: "The scan." },
      ], responses: { 200: { description: "Stored." } } } } },
    };
    const legacy = await OpenApiClient.fromSpec(swagger);
    assert.equal(legacy.catalog.plans.get("legacyUpload")!.body!.encoding, "multipart");
    assert.equal((legacy.tools[0]!.input_schema as { properties: Record<string, { contentEncoding?: string }> }).properties.file!.contentEncoding, "base64");
    const echo = (await legacy.call("legacyUpload", { title: "old scan", file: base64("%PDF") })).body as Echo;
    assert.equal(echo.prefix, "/legacy");
    const form = await new Response(Buffer.from(echo.bytes, "base64"), { headers: { "content-type": echo.contentType! } }).formData();
    assert.equal(form.get("title"), "old scan");
    assert.equal(await (form.get("file") as File).text(), "%PDF");
  });

  it("calls path-level and operation-level servers with the same variables", async () => {
    assert.equal(((await vault.call("mirrorStatus", {})).body as Echo).prefix, "/mirror");
    assert.equal(((await vault.call("listArchive", {})).body as Echo).prefix, "/archive-2019");
  });
});
