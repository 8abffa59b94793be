import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { ToolsearchError } from "../../src/errors.js";
import { runTool } from "../../src/execution/run-tool.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { resolveAuth } from "../../src/openapi/auth.js";
import { httpErrorMessage, OpenApiClient } from "../../src/openapi/call.js";
import { rejectedError as rejection } from "../helpers/errors.js";
import { fixture } from "../helpers/files.js";
import { CREDENTIALS, type FixtureServer, startFixtureServer } from "./server.js";

const spec = fixture("openapi", "clinic.yaml");

interface Echo {
  operationId: string;
  method: string;
  path: string;
  params: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string | null>;
  cookie: string | null;
  body: string;
}

describe("calling imported operations against a local server built from the same spec", () => {
  let server: FixtureServer;
  let bearer: OpenApiClient;
  before(async () => {
    server = await startFixtureServer(spec);
    bearer = await OpenApiClient.fromSpec(spec, { baseUrl: server.baseUrl, auth: { bearer: CREDENTIALS.bearer } });
  });
  after(() => server.close());

  it("places query (repeated arrays), header and cookie parameters, with a bearer token", async () => {
    const result = await bearer.call("listPatients", { limit: 5, status: "active", tag: ["a", "b"], "X-Request-Id": "r-1", session_hint: "warm cache" });
    assert.equal(result.status, 200);
    assert.equal(result.ok, true);
    const echo = result.body as Echo;
    assert.equal(echo.operationId, "listPatients");
    assert.deepEqual(echo.query, [["limit", "5"], ["status", "active"], ["tag", "a"], ["tag", "b"]]);
    assert.equal(echo.headers["x-request-id"], "r-1");
    assert.equal(echo.cookie, "session_hint=warm%20cache");
    assert.equal(result.headers["x-request-id"], "r-1", "headers of interest come back");
    assert.match(result.headers["content-type"]!, /json/);
  });

  it("fills path parameters (encoded) and sends basic auth where the operation asks for it", async () => {
    const basic = await OpenApiClient.fromSpec(spec, { baseUrl: server.baseUrl, auth: { basic: CREDENTIALS.basic } });
    const result = await basic.call("getPatient", { patient_id: "p7" });
    assert.equal(result.status, 200);
    assert.deepEqual((result.body as Echo).params, { patient_id: "p7" });
    const odd = await basic.call("getPatient", { patient_id: "p 7/x" });
    assert.equal((odd.body as Echo).path, "/patients/p%207%2Fx", "a value cannot escape its path segment");
  });

  it("refuses before sending when the operation needs a credential that is not configured", async () => {
    const before = server.requests;
    const error = await rejection(bearer.call("getPatient", { patient_id: "p7" }));
    assert.equal(error.code, "config_invalid");
    assert.match(error.message, /needs basicAuth \(basic\)/);
    assert.ok(!error.message.includes(CREDENTIALS.bearer), "no secret in messages");
    assert.equal(server.requests, before, "nothing was sent");
  });

  it("sends API keys in a header or in the query, as the security schemes say", async () => {
    const keyed = await OpenApiClient.fromSpec(spec, { baseUrl: server.baseUrl, auth: { apiKey: CREDENTIALS.apiKey } });
    const search = await keyed.call("searchRecords", { q: "asthma" });
    assert.equal(search.status, 200);
    assert.deepEqual((search.body as Echo).query, [["q", "asthma"], ["api_key", CREDENTIALS.apiKey]]);
    const stats = await keyed.call("getStats", {});
    assert.equal(stats.status, 200);
    const wrong = await OpenApiClient.fromSpec(spec, { baseUrl: server.baseUrl, auth: { apiKey: "nope" } });
    const denied = await wrong.call("getStats", {});
    assert.equal(denied.status, 401);
    assert.equal(httpErrorMessage(denied), "HTTP 401 Unauthorized: missing or wrong credentials for getStats");
  });

  it("sends a flattened object body as JSON, and a oneOf body whole", async () => {
    const created = await bearer.call("createPatient", { name: "Ann Lee", birth_date: "1990-02-03", address: { city: "Lyon", country: "FR" } });
    assert.equal(created.status, 201);
    assert.equal(created.headers.location, "/api/v1/patients");
    const echo = created.body as Echo;
    assert.equal(echo.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(echo.body), { name: "Ann Lee", birth_date: "1990-02-03", address: { city: "Lyon", country: "FR" } });
    const note = await bearer.call("addNote", { patient_id: "p1", body: { kind: "voice", transcript: "feeling better", seconds: 12 } });
    assert.deepEqual(JSON.parse((note.body as Echo).body), { kind: "voice", transcript: "feeling better", seconds: 12 });
  });

  it("sends a form body, and calls public operations without credentials", async () => {
    const anonymous = await OpenApiClient.fromSpec(spec, { baseUrl: server.baseUrl });
    const form = await anonymous.call("submitIntakeForm", { full_name: "Ann Lee", allergies: ["nuts", "latex"] });
    const echo = form.body as Echo;
    assert.equal(echo.headers["content-type"], "application/x-www-form-urlencoded");
    assert.equal(echo.body, "full_name=Ann+Lee&allergies=nuts&allergies=latex");
    assert.equal((await anonymous.call("get_categories", {})).status, 200);
  });

  it("turns 4xx and 5xx answers into error results quoting the status and the API's message", async () => {
    for (const code of [404, 422, 503]) {
      const result = await bearer.call("failWith", { code });
      assert.equal(result.ok, false);
      assert.equal(result.status, code);
    }
    const index = await ToolIndex.fromTools(bearer.tools);
    const outcome = await runTool({ name: "failWith", input: { code: 404 } }, index, bearer.handlers());
    assert.equal(outcome.isError, true);
    assert.equal(outcome.content, "failWith failed: HTTP 404 Not Found: failing with 404 as asked");
    const ok = await runTool({ name: "listPatients", input: { limit: "3" } }, index, bearer.handlers());
    assert.equal(ok.isError, false);
    assert.deepEqual(JSON.parse(ok.content as string).body.query, [["limit", "3"], ["status", "active"]], "input validated, coerced and defaulted first");
  });

  it("gives up after the timeout and cuts responses over the size cap", async () => {
    // The server waits 3 s before answering slowReport; a timeout far below that fails however loaded the machine is.
    const impatient = await OpenApiClient.fromSpec(spec, { baseUrl: server.baseUrl, timeoutMs: 200 });
    const error = await rejection(impatient.call("slowReport", {}));
    assert.equal(error.code, "upstream_timeout");
    assert.match(error.message, /GET \/slow did not answer within 200 ms/);
    const capped = await OpenApiClient.fromSpec(spec, { baseUrl: server.baseUrl, maxResponseBytes: 10_000 });
    const big = await capped.call("exportAll", {});
    assert.equal(big.truncated, true);
    assert.equal(typeof big.body, "string");
    assert.ok((big.body as string).length <= 10_000);
  });

  it("says clearly when the server is down or the spec names no absolute server", async () => {
    const closed = await startFixtureServer(spec);
    const url = closed.baseUrl;
    await closed.close();
    const down = await OpenApiClient.fromSpec(spec, { baseUrl: url });
    const error = await rejection(down.call("get_categories", {}));
    assert.equal(error.code, "upstream_unavailable");
    assert.match(error.message, /cannot reach http:\/\/127\.0\.0\.1:\d+/);
    const relative = await OpenApiClient.fromSpec(fixture("openapi", "clinic-31.yaml"));
    const noServer = await rejection(relative.call("getAppointment", { id: "a1" }));
    assert.equal(noServer.code, "config_invalid");
    assert.match(noServer.message, /server URL "\/api\/v2" is not absolute; give a base URL/);
  });
});

describe("calling a converted Swagger 2.0 document", () => {
  it("sends the body parameter as JSON and the API key where securityDefinitions say", async () => {
    const seen: { url?: string; key?: string; body?: string }[] = [];
    const server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk));
      request.on("end", () => {
        seen.push({ url: request.url, key: request.headers["x-pet-key"] as string | undefined, body });
        response.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ ok: true }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const pets = await OpenApiClient.fromSpec(fixture("openapi", "petstore-swagger2.json"), { baseUrl, auth: { apiKey: "pet-key" } });
      assert.equal((await pets.call("addPet", { name: "Rex", tag: "dog" })).status, 201);
      assert.equal((await pets.call("listPets", { limit: 3 })).status, 201);
      assert.deepEqual(seen, [
        { url: "/v1/pets", key: "pet-key", body: '{"name":"Rex","tag":"dog"}' },
        { url: "/v1/pets?limit=3", key: "pet-key", body: "" },
      ]);
    } finally {
      server.close();
    }
  });
});

describe("credentials from the configuration", () => {
  it("fills ${VAR} and ${VAR:-default} from the environment and names a missing variable, never the secret", () => {
    const env = { CLINIC_TOKEN: "abc" };
    assert.deepEqual(resolveAuth({ bearer: "${CLINIC_TOKEN}" }, env, "auth"), { bearer: "abc" });
    assert.deepEqual(resolveAuth({ basic: { username: "${USER_NAME:-bob}", password: "${CLINIC_TOKEN}" } }, env, "auth"), { basic: { username: "bob", password: "abc" } });
    assert.throws(() => resolveAuth({ apiKey: "${NOPE}" }, env, 'openapi "clinic": auth'), (e: ToolsearchError) => e.code === "config_invalid" && /openapi "clinic": auth\.apiKey refers to \$\{NOPE\}, which is not set/.test(e.message));
    assert.throws(() => resolveAuth({ token: "x" }, env, "auth"), /auth must be one of/);
    assert.throws(() => resolveAuth({ basic: { username: "a" } }, env, "auth"), /auth\.basic must be a string pair/);
  });
});
