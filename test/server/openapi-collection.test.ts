/**
 * An `mcp` collection whose configuration has an `openapi` block (SPEC §13: "the gateway and the service call such
 * tools"): the operations are searchable over REST and MCP, and `call_tool` sends the HTTP request to a local server
 * built from the same spec, with the credentials the configuration fills from the environment.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fixture } from "../helpers/files.js";
import { eventually, foundNames, textOf } from "../mcp/helpers.js";
import { CREDENTIALS, type FixtureServer, startFixtureServer } from "../openapi/server.js";
import { makeService, type TestService } from "./helpers.js";

const SPEC = fixture("openapi", "clinic.yaml");
const TOKEN_VARIABLE = "TOOLSEARCH_TEST_CLINIC_TOKEN";

describe("a service collection of kind mcp with an openapi block", () => {
  let s: TestService;
  let api: FixtureServer;
  let base: string;
  let client: Client | undefined;

  before(async () => {
    process.env[TOKEN_VARIABLE] = CREDENTIALS.bearer;
    api = await startFixtureServer(SPEC);
    s = await makeService();
    base = await s.app.listen({ port: 0, host: "127.0.0.1" });
    const body = { kind: "mcp", openapi: { clinic: { spec: SPEC, baseUrl: api.baseUrl, auth: { bearer: `\${${TOKEN_VARIABLE}}` } } } };
    const put = await fetch(`${base}/v1/collections/clinic`, { method: "PUT", headers: { ...s.auth(s.keys.admin), "content-type": "application/json" }, body: JSON.stringify(body) });
    assert.equal(put.status, 201, await put.text());
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await s.close();
    await api.close();
    delete process.env[TOKEN_VARIABLE];
  });

  test("its operations are found over REST, named clinic__<operation>", async () => {
    await eventually(async () => {
      const response = await fetch(`${base}/v1/collections/clinic/search`, { method: "POST", headers: { ...s.auth(s.keys.read), "content-type": "application/json" }, body: JSON.stringify({ query: "list patients" }) });
      return ((await response.json()) as { results?: { name: string }[] }).results?.[0]?.name === "clinic__listPatients";
    });
  });

  test("call_tool over /mcp/{c} sends the request, and a 4xx answer is an error result quoting the API", async () => {
    client = new Client({ name: "openapi-collection-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/clinic`), { requestInit: { headers: s.auth(s.keys.call) } }));
    assert.ok(foundNames(await client.callTool({ name: "search_tools", arguments: { query: "submit intake form" } })).includes("clinic__submitIntakeForm"));
    const before = api.requests;
    const listed = await client.callTool({ name: "call_tool", arguments: { name: "clinic__listPatients", arguments: { status: "active", tag: ["a", "b"] } } });
    assert.notEqual(listed.isError, true, textOf(listed));
    const answer = JSON.parse(textOf(listed)) as { status: number; body: { operationId: string; query: [string, string][] } };
    assert.equal(answer.status, 200);
    assert.equal(answer.body.operationId, "listPatients");
    assert.deepEqual(answer.body.query.filter(([k]) => k !== "limit"), [["status", "active"], ["tag", "a"], ["tag", "b"]]);
    assert.equal(api.requests, before + 1, "the call reached the local API once");

    const failed = await client.callTool({ name: "call_tool", arguments: { name: "clinic__failWith", arguments: { code: 404 } } });
    assert.equal(failed.isError, true);
    assert.match(textOf(failed), /HTTP 404 Not Found: failing with 404 as asked/);
  });
});
