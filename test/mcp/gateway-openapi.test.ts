/**
 * The gateway serving a REST API from its OpenAPI document (SPEC §13): tools named `clinic__<operation>`, searched and
 * described like any upstream's, called over HTTP against a local server built from the same document.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ToolsearchError } from "../../src/errors.js";
import { parseGatewayConfig } from "../../src/mcp/config.js";
import { Gateway } from "../../src/mcp/gateway.js";
import { thrownError } from "../helpers/errors.js";
import { fixture, tempFile } from "../helpers/files.js";
import { CREDENTIALS, type FixtureServer, startFixtureServer } from "../openapi/server.js";
import { connectInMemory, foundNames, textOf } from "./helpers.js";

const SPEC = fixture("openapi", "clinic.yaml");
const TOKEN_VAR = `TOOLSEARCH_TEST_CLINIC_TOKEN_${process.pid}`;

describe("gateway with an OpenAPI document beside mcpServers", () => {
  let server: FixtureServer;
  let gateway: Gateway;
  let client: Client;
  const logs: string[] = [];

  before(async () => {
    server = await startFixtureServer(SPEC);
    process.env[TOKEN_VAR] = CREDENTIALS.bearer;
    const config = parseGatewayConfig({ mcpServers: {}, openapi: { clinic: { spec: SPEC, baseUrl: server.baseUrl, auth: { bearer: `\${${TOKEN_VAR}}` } } } });
    gateway = await Gateway.start({ config, log: (line) => logs.push(line) });
    client = await connectInMemory(gateway);
  });
  after(async () => {
    delete process.env[TOKEN_VAR];
    await client.close();
    await gateway.close();
    await server.close();
  });

  it("indexes each operation as clinic__<operation> and logs what it skipped", async () => {
    const names = gateway.index.names().sort();
    assert.equal(names.length, 15);
    assert.ok(names.includes("clinic__listPatients") && names.includes("clinic__delete_patient_2"));
    assert.ok(logs.some((l) => /openapi "clinic" ready with 15 tools \(1 operation skipped: POST \/files\/\{file_id\}\/scan/.test(l)), logs.join("\n"));
    const found = foundNames(await client.callTool({ name: "search_tools", arguments: { query: "register a new patient" } }));
    assert.equal(found[0], "clinic__createPatient");
    const described = JSON.parse(textOf(await client.callTool({ name: "describe_tool", arguments: { name: "clinic__createPatient" } })));
    assert.equal(described.server, "clinic");
    assert.match(described.description, /\(POST \/patients\)$/);
  });

  it("calls an operation over HTTP with the token from the environment, and returns status, headers and body", async () => {
    const result = (await client.callTool({ name: "call_tool", arguments: { name: "clinic__listPatients", arguments: { limit: 2 } } })) as CallToolResult;
    assert.equal(result.isError, undefined);
    const answer = JSON.parse(textOf(result));
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.query, [["limit", "2"], ["status", "active"]]);
    assert.match(answer.headers["content-type"], /json/);
  });

  it("answers a 4xx as an error result quoting the status and the API's message", async () => {
    const result = (await client.callTool({ name: "call_tool", arguments: { name: "clinic__failWith", arguments: { code: 409 } } })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^HTTP 409 Conflict: failing with 409 as asked\n/);
  });

  it("validates arguments against the imported schema before sending anything", async () => {
    const before = server.requests;
    const result = (await client.callTool({ name: "call_tool", arguments: { name: "clinic__getPatient", arguments: {} } })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match(textOf(result), /patient_id/);
    const missingCredential = (await client.callTool({ name: "call_tool", arguments: { name: "clinic__getPatient", arguments: { patient_id: "p1" } } })) as CallToolResult;
    assert.equal(missingCredential.isError, true);
    assert.match(textOf(missingCredential), /needs basicAuth \(basic\)/);
    assert.equal(server.requests, before);
  });
});

describe("the openapi block of a gateway configuration", () => {
  it("reads a spec path relative to the configuration file, and allows a configuration with APIs only", () => {
    const file = tempFile("gateway.json", "{}");
    const config = parseGatewayConfig({ openapi: { clinic: { spec: "clinic.yaml" }, off: { spec: "x.yaml", disabled: true } } }, file);
    assert.deepEqual(config.mcpServers, {});
    assert.deepEqual(Object.keys(config.openapi!), ["clinic"]);
    assert.equal(config.openapi!.clinic!.spec, file.replace(/gateway\.json$/, "clinic.yaml"));
  });

  it("refuses bad entries, naming the API and the field", () => {
    const error = thrownError(() => parseGatewayConfig({
      mcpServers: { clinic: { url: "http://127.0.0.1:1/mcp" } },
      openapi: { clinic: { spec: "a.yaml" }, bad: { baseUrl: "not a url", auth: "token", retries: 3, server: -1, serverVariables: { port: 8080 } } },
    }));
    assert.equal(error.code, "config_invalid");
    for (const part of [/openapi "clinic": the name is also an MCP server's/, /openapi "bad": field "spec" is required/, /openapi "bad": field "baseUrl" must be an absolute URL/, /openapi "bad": field "auth" must be one of/, /openapi "bad": field "retries" is not a known field/,
      /openapi "bad": field "server" must be a server's index/, /openapi "bad": field "serverVariables" must map variable names to strings/]) {
      assert.match(error.message, part);
    }
  });

  it("stops the start with a clear error when a document or a credential is missing", async () => {
    const missingVar = parseGatewayConfig({ openapi: { clinic: { spec: SPEC, auth: { bearer: "${TOOLSEARCH_TEST_SURELY_UNSET}" } } } });
    await assert.rejects(Gateway.start({ config: missingVar, log: () => {} }), (e: ToolsearchError) => e.code === "config_invalid" && /openapi "clinic": auth\.bearer refers to \$\{TOOLSEARCH_TEST_SURELY_UNSET\}, which is not set/.test(e.message));
    const missingSpec = parseGatewayConfig({ openapi: { clinic: { spec: fixture("openapi", "nope.yaml") } } });
    await assert.rejects(Gateway.start({ config: missingSpec, log: () => {} }), (e: ToolsearchError) => e.code === "config_invalid" && /openapi "clinic": .*nope\.yaml: cannot read file/.test(e.message));
  });

  it("calls the document's own server with variables from the configuration (no baseUrl)", async () => {
    const api = await startFixtureServer(SPEC);
    const portVar = `TOOLSEARCH_TEST_CLINIC_PORT_${process.pid}`;
    process.env[portVar] = new URL(api.baseUrl).port;
    const config = parseGatewayConfig({ openapi: { clinic: { spec: SPEC, server: 0, serverVariables: { port: `\${${portVar}}` }, auth: { bearer: CREDENTIALS.bearer } } } });
    const gateway = await Gateway.start({ config, log: () => {} });
    try {
      const client = await connectInMemory(gateway);
      const result = (await client.callTool({ name: "call_tool", arguments: { name: "clinic__listPatients", arguments: {} } })) as CallToolResult;
      assert.notEqual(result.isError, true, textOf(result));
      assert.equal((JSON.parse(textOf(result)) as { status: number }).status, 200);
      await client.close();
    } finally {
      delete process.env[portVar];
      await gateway.close();
      await api.close();
    }
  });
});
