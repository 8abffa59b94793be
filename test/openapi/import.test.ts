import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeTools } from "../../src/catalog/load.js";
import { ToolsearchError } from "../../src/errors.js";
import { InputValidator } from "../../src/execution/validate-input.js";
import { lintTools } from "../../src/lint/runner.js";
import { catalogFromOpenApi, type OpenApiCatalog } from "../../src/openapi/catalog.js";
import { NameRegistry } from "../../src/openapi/names.js";
import { rejectedError } from "../helpers/errors.js";
import { fixture } from "../helpers/files.js";

const clinic = fixture("openapi", "clinic.yaml");

function tool(catalog: OpenApiCatalog, name: string) {
  const found = catalog.tools.find((t) => t.name === name);
  assert.ok(found, `no tool ${name} in ${catalog.tools.map((t) => t.name).join(", ")}`);
  return found;
}

function refusal(spec: string | object): Promise<ToolsearchError> {
  return rejectedError(() => catalogFromOpenApi(spec));
}

describe("importing OpenAPI documents", () => {
  it("makes one tool per operation, with valid unique names, and reports what it skipped and why", async () => {
    const catalog = await catalogFromOpenApi(clinic);
    assert.equal(catalog.version, "3.0");
    assert.deepEqual(catalog.tools.map((t) => t.name), [
      "listPatients", "createPatient", "getPatient", "delete_patient", "delete_patient_2", "addNote", "get_categories",
      "post_categories", "uploadFile", "searchRecords", "getStats", "submitIntakeForm", "failWith", "slowReport", "exportAll",
    ]);
    assert.deepEqual(catalog.skipped, [{ method: "POST", path: "/files/{file_id}/scan", operationId: "scanFile", reason: "its required request body names no media type, so there is no way to know how to send it" }]);
    // The catalog loads under the rules of SPEC §3 and lints without errors.
    const loaded = normalizeTools(catalog.tools);
    assert.equal(loaded.length, 15);
    const report = lintTools(loaded);
    assert.deepEqual(report.findings.filter((f) => f.severity === "error"), []);
  });

  it("gives the same names on every run", async () => {
    const first = await catalogFromOpenApi(clinic);
    const second = await catalogFromOpenApi(clinic);
    assert.deepEqual(first.tools.map((t) => t.name), second.tools.map((t) => t.name));
    assert.deepEqual(first.tools, second.tools);
  });

  it("describes each tool with its summary, description, method and path, and takes the category from the first tag", async () => {
    const catalog = await catalogFromOpenApi(clinic);
    const list = tool(catalog, "listPatients");
    assert.equal(list.description, "List patients. Lists the clinic's patients, newest first, optionally filtered by status and tags. (GET /patients)");
    assert.equal(list.category, "patients");
    assert.deepEqual(list.openapi, { method: "GET", path: "/patients", operationId: "listPatients", server: "http://127.0.0.1:8080/api/v1" });
    assert.equal(tool(catalog, "searchRecords").category, "Clinic API", "no tag: the API's title");
  });

  it("takes parameters from path, query, header and cookie with their description, enum, format and default", async () => {
    const catalog = await catalogFromOpenApi(clinic);
    const schema = tool(catalog, "listPatients").input_schema as { properties: Record<string, Record<string, unknown>>; required?: string[] };
    assert.deepEqual(schema.properties.limit, { type: "integer", minimum: 1, maximum: 100, default: 20, description: "Most patients to return." });
    assert.deepEqual(schema.properties.status, { type: "string", enum: ["active", "discharged"], default: "active", description: "Only patients with this status." });
    assert.equal(schema.properties["X-Request-Id"]!.format, "uuid");
    assert.equal(schema.properties.session_hint!.description, "A hint for the server's session cache.");
    assert.equal(schema.properties.Accept, undefined, "Accept is the client's own header");
    assert.equal(schema.required, undefined);
    const plan = catalog.plans.get("listPatients")!;
    assert.deepEqual(plan.placements.map((p) => [p.arg, p.in]), [["limit", "query"], ["status", "query"], ["tag", "query"], ["X-Request-Id", "header"], ["session_hint", "cookie"]]);
    const get = tool(catalog, "getPatient").input_schema;
    assert.deepEqual(get.required, ["patient_id"], "path-level parameters count, and path parameters are required");
  });

  it("resolves local and nested $refs, flattens an object body and drops read-only fields", async () => {
    const catalog = await catalogFromOpenApi(clinic);
    const schema = tool(catalog, "createPatient").input_schema as { properties: Record<string, Record<string, unknown>>; required: string[] };
    assert.deepEqual(Object.keys(schema.properties), ["name", "birth_date", "phone", "address"]);
    assert.deepEqual(schema.required, ["name", "birth_date"]);
    assert.deepEqual(schema.properties.phone, { type: ["string", "null"], examples: ["+33 1 23 45 67 89"] }, "3.0 nullable and example become JSON Schema");
    const address = schema.properties.address as { properties: Record<string, Record<string, unknown>> };
    assert.deepEqual(address.properties.country!.enum, ["FR", "DE", "GB", "US"]);
    assert.ok(!JSON.stringify(schema).includes("$ref"));
  });

  it("keeps circular schemas finite with $defs, and the schema still validates nested input", async () => {
    const catalog = await catalogFromOpenApi(clinic);
    const schema = tool(catalog, "post_categories").input_schema as Record<string, unknown>;
    assert.deepEqual((schema.properties as Record<string, unknown>).children, { type: "array", items: { $ref: "#/$defs/Category" } });
    assert.ok((schema.$defs as Record<string, unknown>).Category);
    const validator = new InputValidator();
    assert.equal(validator.validate("post_categories", schema, { name: "a", children: [{ name: "b", children: [{ name: "c" }] }] }).ok, true);
    assert.equal(validator.validate("post_categories", schema, { name: "a", children: [{ children: [] }] }).ok, false, "a nested category needs a name");
  });

  it("cuts object schemas nested more than three $refs deep to plain objects, and says so", async () => {
    const link = (next: string) => ({ type: "object", properties: { label: { $ref: "#/components/schemas/Label" }, next: { $ref: `#/components/schemas/${next}` } } });
    const catalog = await catalogFromOpenApi({
      openapi: "3.0.0", info: { title: "Chain", version: "1" },
      paths: { "/a": { post: { operationId: "postA", requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/A" } } } }, responses: {} } } },
      components: { schemas: { A: link("B"), B: link("C"), C: link("D"), D: { ...link("A"), description: "The fourth." }, Label: { type: "string", enum: ["x", "y"] } } },
    });
    const schema = catalog.tools[0]!.input_schema as any;
    const c = schema.properties.next.properties.next;
    assert.deepEqual(c.properties.label, { type: "string", enum: ["x", "y"] }, "a scalar is copied at any depth");
    assert.deepEqual(c.properties.next, { type: "object", description: "The fourth. (A D; its fields are not listed here: nested too deep.)" });
    assert.deepEqual(catalog.warnings, ["POST /a (postA): 1 schema part nested more than 3 $refs deep given as plain objects"]);
    normalizeTools(catalog.tools);
  });

  it("flattens an allOf of plain objects (base + extension), and keeps an allOf with a repeated field whole", async () => {
    const body = (schema: unknown) => ({ required: true, content: { "application/json": { schema } } });
    const catalog = await catalogFromOpenApi({
      openapi: "3.0.0", info: { title: "Compose", version: "1" },
      paths: {
        "/dogs": { post: { operationId: "addDog", requestBody: body({ allOf: [{ $ref: "#/components/schemas/Pet" }, { type: "object", properties: { breed: { type: "string" } }, required: ["breed"] }] }), responses: {} } },
        "/cats": { post: { operationId: "addCat", requestBody: body({ allOf: [{ $ref: "#/components/schemas/Pet" }, { properties: { name: { type: "string", maxLength: 5 } } }] }), responses: {} } },
      },
      components: { schemas: { Pet: { type: "object", required: ["name"], properties: { name: { type: "string" } } } } },
    });
    const [dog, cat] = catalog.tools;
    assert.deepEqual(dog!.input_schema, { type: "object", properties: { name: { type: "string" }, breed: { type: "string" } }, required: ["name", "breed"] });
    assert.deepEqual(Object.keys(cat!.input_schema.properties as object), ["body"]);
    assert.equal(catalog.plans.get("addDog")!.body!.mode, "fields");
  });

  it("makes a oneOf body one `body` property, and translates boolean exclusiveMinimum", async () => {
    const catalog = await catalogFromOpenApi(clinic);
    const schema = tool(catalog, "addNote").input_schema as { properties: Record<string, { oneOf?: Record<string, unknown>[] }>; required: string[] };
    assert.deepEqual(schema.required, ["patient_id", "body"]);
    assert.equal(schema.properties.body!.oneOf!.length, 2);
    const voice = schema.properties.body!.oneOf![1] as { properties: Record<string, unknown> };
    assert.deepEqual(voice.properties.seconds, { type: "number", exclusiveMinimum: 0 });
    assert.deepEqual(catalog.plans.get("addNote")!.body, { mediaType: "application/json", encoding: "json", mode: "whole", arg: "body", required: true });
  });

  it("names operations without an operationId from method and path, and de-duplicates names after sanitizing", async () => {
    const catalog = await catalogFromOpenApi(clinic);
    assert.equal(tool(catalog, "get_categories").openapi.path, "/categories");
    assert.equal(tool(catalog, "delete_patient").openapi.operationId, "delete patient");
    assert.equal(tool(catalog, "delete_patient_2").openapi.operationId, "delete.patient");
  });

  it("reads OpenAPI 3.1: type arrays, $ref siblings, a clashing operationId", async () => {
    const catalog = await catalogFromOpenApi(fixture("openapi", "clinic-31.yaml"));
    assert.equal(catalog.version, "3.1");
    const book = tool(catalog, "bookAppointment").input_schema as { properties: Record<string, Record<string, unknown>> };
    assert.deepEqual(book.properties.note, { type: ["string", "null"], examples: ["first visit"] });
    assert.deepEqual(book.properties.kind, { type: "string", enum: ["checkup", "vaccination", "follow_up"], default: "checkup", description: "What the appointment is for." });
    assert.deepEqual(catalog.tools.map((t) => t.name), ["bookAppointment", "getAppointment", "getAppointment_2"]);
    normalizeTools(catalog.tools);
  });

  it("converts Swagger 2.0 (body parameter, definitions, host and basePath)", async () => {
    const catalog = await catalogFromOpenApi(fixture("openapi", "petstore-swagger2.json"));
    assert.equal(catalog.convertedFrom, "2.0");
    assert.equal(catalog.serverUrl, "http://127.0.0.1:9999/v1");
    const add = tool(catalog, "addPet").input_schema;
    assert.deepEqual(add.required, ["name"]);
    assert.deepEqual((add.properties as Record<string, unknown>).name, { type: "string", description: "The pet's name" });
    assert.deepEqual(catalog.securitySchemes.api_key, { type: "apiKey", in: "header", name: "X-Pet-Key" });
  });

  it("bundles $refs to other local files", async () => {
    const catalog = await catalogFromOpenApi(fixture("openapi", "split", "api.yaml"));
    const schema = tool(catalog, "createOwner").input_schema as { properties: { pets: { items: { properties: Record<string, unknown> } } } };
    assert.deepEqual(Object.keys(schema.properties.pets.items.properties), ["name", "species"]);
  });

  it("prefixes names, and keeps names unique across documents imported together", async () => {
    const names = new NameRegistry();
    const a = await catalogFromOpenApi(fixture("openapi", "clinic-31.yaml"), { prefix: "clinic", names });
    const b = await catalogFromOpenApi(fixture("openapi", "clinic-31.yaml"), { prefix: "clinic", names });
    assert.equal(a.tools[0]!.name, "clinic__bookAppointment");
    assert.equal(b.tools[0]!.name, "clinic__bookAppointment_2");
    const long = await catalogFromOpenApi({ openapi: "3.0.0", info: { title: "t", version: "1" }, paths: { "/x": { get: { operationId: "x".repeat(80), responses: {} } } } }, { prefix: "p" });
    assert.equal(long.tools[0]!.name.length, 64);
    assert.match(long.tools[0]!.name, /^p__x+_[0-9a-f]{8}$/);
  });

  it("imports an object as well as a file, without changing the object", async () => {
    const spec = { openapi: "3.0.0", info: { title: "Tiny", version: "1" }, paths: { "/ping": { get: { summary: "Ping", responses: {} } } } };
    const before = structuredClone(spec);
    const catalog = await catalogFromOpenApi(spec);
    assert.equal(catalog.tools[0]!.name, "get_ping");
    assert.deepEqual(spec, before);
  });

  it("refuses what it cannot read with a clear error naming the file", async () => {
    const cases: [string | object, string, RegExp][] = [
      [fixture("openapi", "not-openapi.yaml"), "openapi_invalid", /not-openapi\.yaml: not a supported OpenAPI document .*OpenAPI 3\.0, 3\.1 and Swagger 2\.0/],
      [fixture("openapi", "bad-syntax.yaml"), "file_parse", /bad-syntax\.yaml: not valid JSON or YAML/],
      [fixture("openapi", "missing.yaml"), "file_unreadable", /missing\.yaml: cannot read file/],
      ["https://example.com/spec.yaml", "openapi_invalid", /give a local file/],
      [{ openapi: "3.0.0", info: {} }, "openapi_invalid", /no "paths" object/],
      [{ openapi: "4.0.0", paths: {} }, "openapi_invalid", /"openapi": "4\.0\.0"/],
    ];
    for (const [spec, code, message] of cases) {
      const error = await refusal(spec);
      assert.equal(error.code, code, String(spec));
      assert.match(error.message, message);
      assert.ok(!error.message.includes("    at "), "no stack trace");
    }
  });

  it("skips an operation whose $ref to another file cannot be read, naming the file, rather than refusing the document", async () => {
    const catalog = await catalogFromOpenApi(fixture("openapi", "split", "missing-file.yaml"));
    assert.deepEqual(catalog.tools, []);
    assert.equal(catalog.skipped.length, 1);
    assert.match(catalog.skipped[0]!.reason, /missing-file\.yaml: \$ref \.\/nope\.yaml#\/Param cannot be resolved \(no such file\)/);
  });

  it("skips only the operations a broken internal $ref touches, with the reason", async () => {
    const catalog = await catalogFromOpenApi(fixture("openapi", "broken-ref.yaml"));
    assert.deepEqual(catalog.tools, []);
    assert.equal(catalog.skipped.length, 1);
    assert.match(catalog.skipped[0]!.reason, /\$ref #\/components\/parameters\/Missing points to nothing in the document/);
    const healthy = await catalogFromOpenApi({
      openapi: "3.0.0", info: { title: "t", version: "1" },
      paths: { "/ok": { get: { operationId: "fine", responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Gone" } } } } } } } },
    });
    assert.deepEqual(healthy.tools.map((t) => t.name), ["fine"], "a broken reference in a response costs nothing");
  });

  it("recovers a path indented inside another or missing its slash, and ignores keys that are not paths, saying so", async () => {
    const catalog = await catalogFromOpenApi(fixture("openapi", "misindented.yaml"));
    assert.deepEqual(catalog.tools.map((t) => [t.name, t.openapi.path]), [["listRoutes", "/routes"], ["searchRoutes", "/routes/search"], ["getRoute", "/routes/{id}"]]);
    assert.deepEqual(catalog.warnings, [
      "path /routes/search was found inside path /routes (wrong indentation?): imported as a path of its own",
      'path "routes/{id}" does not start with "/": read as /routes/{id}',
      '"paths" holds "components", which is neither a path nor has operations: ignored',
    ]);
  });

  it("skips an operation whose path parameter is undeclared, with the reason", async () => {
    const catalog = await catalogFromOpenApi({ openapi: "3.0.0", info: { title: "t", version: "1" }, paths: { "/a/{id}": { get: { responses: {} } } } });
    assert.deepEqual(catalog.tools, []);
    assert.match(catalog.skipped[0]!.reason, /path parameter \{id\} is not declared/);
  });
});
