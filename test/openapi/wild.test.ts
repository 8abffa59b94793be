/**
 * Spec shapes found in published OpenAPI documents (test/fixtures/openapi-wild/, written by hand): for each, what is
 * imported, what is repaired (with a warning naming the repair) and what is skipped (with the reason).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { normalizeTools } from "../../src/catalog/load.js";
import { catalogFromOpenApi, type OpenApiCatalog } from "../../src/openapi/catalog.js";
import { runCli } from "../helpers/cli.js";
import { fixture, tempFile } from "../helpers/files.js";

const wild = (name: string) => catalogFromOpenApi(fixture("openapi-wild", name));
const names = (catalog: OpenApiCatalog) => catalog.tools.map((t) => t.name);
const repairs = (catalog: OpenApiCatalog) => catalog.warnings.filter((w) => w.includes("repaired: "));
const schemaOf = (catalog: OpenApiCatalog, name: string) => catalog.tools.find((t) => t.name === name)!.input_schema as {
  properties: Record<string, Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> }>;
};

describe("OpenAPI documents as published", () => {
  it("imports every operation despite a broken external $ref in a vendor extension and string-typed bounds, naming each repair", async () => {
    const catalog = await wild("vendor-extension-broken-ref.yaml");
    assert.deepEqual(names(catalog), ["searchCatalog", "getArtistAlbums", "createPlaylist"]);
    assert.deepEqual(catalog.skipped, []);
    assert.ok(!catalog.warnings.some((w) => w.includes("cannot be resolved")), "a reference in an extension is never followed");
    assert.deepEqual(repairs(catalog), [
      "repaired: vendor extension x-tunes-rate-policy at #/info holds a $ref, which is not followed (extensions are not schema): left out",
      'GET /search (searchCatalog): repaired: "maximum": "50" is a string: read as the number 50',
      'GET /search (searchCatalog): repaired: "minimum": "1" is a string: read as the number 1',
      'GET /search (searchCatalog): repaired: "maximum": "1000" is a string: read as the number 1000',
      'GET /search (searchCatalog): repaired: "minimum": "0" is a string: read as the number 0',
      'GET /artists/{id}/albums (getArtistAlbums): repaired: "maximum": "50" is a string: read as the number 50',
      'GET /artists/{id}/albums (getArtistAlbums): repaired: "minimum": "1" is a string: read as the number 1',
      'POST /me/playlists (createPlaylist): repaired: "maxLength": "100" is a string: read as the number 100',
      'POST /me/playlists (createPlaylist): repaired: "maxLength": "300" is a string: read as the number 300',
    ]);
    assert.deepEqual(schemaOf(catalog, "searchCatalog").properties.limit, { type: "integer", minimum: 1, maximum: 50, default: 20, description: "How many items to return" });
    assert.equal(schemaOf(catalog, "createPlaylist").properties.name!.maxLength, 100);
    assert.equal(normalizeTools(catalog.tools).length, 3, "the repaired tools form a valid catalog");
  });

  it("bundles the external parts that exist and skips only the operations whose parts do not", async () => {
    const catalog = await wild("external-refs.yaml");
    assert.deepEqual(names(catalog), ["listShops", "createShop"]);
    assert.deepEqual(schemaOf(catalog, "listShops").properties.page, { type: "integer", minimum: 1, description: "Page number, from 1" });
    assert.equal(schemaOf(catalog, "createShop").properties.address!.properties!.country!.pattern, "^[A-Z]{2}$");
    assert.deepEqual(catalog.skipped.map((s) => `${s.method} ${s.path}`), ["GET /shops/{id}/staff", "GET /shops/{id}/hours"]);
    assert.match(catalog.skipped[0]!.reason, /\$ref \.\/shared\/staff\.yaml#\/Role cannot be resolved \(no such file\)/);
    assert.match(catalog.skipped[1]!.reason, /\$ref \.\/shared\/common\.yaml#\/Weekday cannot be resolved \(nothing at #\/Weekday in that file\)/);
  });

  it("skips only the operations that reach a broken reference inside another file, with a warning for each", async () => {
    const catalog = await wild("nested-broken-refs.yaml");
    assert.deepEqual(names(catalog), ["listOrders", "createOrder"]);
    assert.deepEqual(schemaOf(catalog, "listOrders").properties.limit, { type: "integer", minimum: 1, maximum: 100, description: "How many orders to return" });
    assert.equal(schemaOf(catalog, "createOrder").properties.address!.properties!.country!.pattern, "^[A-Z]{2}$", "the other file's good reference is followed");
    assert.deepEqual(catalog.skipped.map((s) => s.operationId), ["getInvoice", "refundOrder"]);
    assert.match(catalog.skipped[0]!.reason, /\$ref \.\/billing\/formats\.yaml#\/Format cannot be resolved \(no such file, in shared\/orders\.yaml\)/);
    assert.match(catalog.skipped[1]!.reason, /\$ref #\/RefundReason cannot be resolved \(nothing at #\/RefundReason in that file, in shared\/orders\.yaml\)/);
    const unresolved = catalog.warnings.filter((w) => w.includes("cannot be resolved"));
    assert.deepEqual(unresolved.map((w) => w.replace(/ cannot be resolved.*/, "")), [
      "$ref ./billing/formats.yaml#/Format at shared/orders.yaml#/InvoiceFormat/schema",
      "$ref #/RefundReason at shared/orders.yaml#/Refund/properties/reason",
    ]);
    assert.ok(catalog.warnings.includes("repaired: vendor extension x-audit-policy at shared/orders.yaml# holds a $ref, which is not followed (extensions are not schema): left out"));
    assert.equal(normalizeTools(catalog.tools).length, 2);
  });

  it("reads nullable in a 3.1 document as a null type and repairs string bounds in a shared schema, per operation", async () => {
    const catalog = await wild("nullable-in-31.yaml");
    assert.deepEqual(names(catalog), ["createNote", "updateNote"]);
    const create = repairs(catalog).filter((w) => w.startsWith("POST /notes (createNote)"));
    assert.equal(create.length, 4);
    assert.ok(create.some((w) => w.endsWith('"nullable" is OpenAPI 3.0, not 3.1: read as a "null" type')));
    assert.ok(create.some((w) => w.endsWith('"maximum": "five" is not a number: left out')));
    assert.equal(repairs(catalog).filter((w) => w.startsWith("PATCH /notes/{id} (updateNote)")).length, 4);
    const note = schemaOf(catalog, "createNote").properties;
    assert.deepEqual(note.due!.type, ["string", "null"]);
    assert.deepEqual(note.priority, { type: "integer", minimum: 1 });
  });

  it("keeps a list of types in a 3.0 document with a warning, and skips the operation whose body resolves to nothing", async () => {
    const catalog = await wild("type-lists-in-30.yaml");
    assert.deepEqual(names(catalog), ["listReadings"]);
    assert.equal(repairs(catalog).length, 2);
    assert.match(repairs(catalog)[0]!, /"type": \["string","null"\] is a list, which OpenAPI 3\.0 does not allow/);
    assert.deepEqual(schemaOf(catalog, "listReadings").properties.sensor!.type, ["integer", "string"]);
    assert.deepEqual(catalog.skipped.map((s) => s.operationId), ["calibrate"]);
    assert.match(catalog.skipped[0]!.reason, /\$ref #\/components\/schemas\/Calibration points to nothing/);
  });

  it("imports recursive request bodies as finite schemas", async () => {
    const catalog = await wild("recursive-bodies.yaml");
    assert.deepEqual(names(catalog), ["createFolderTree", "postThread"]);
    assert.deepEqual(catalog.skipped, []);
    assert.ok(JSON.stringify(catalog.tools).length < 5000, "each cycle is kept once, in $defs");
    assert.equal(normalizeTools(catalog.tools).length, 2);
  });

  it("names operations without operationIds from method and path, keeps the last of a parameter listed twice", async () => {
    const catalog = await wild("missing-operation-ids.yaml");
    assert.deepEqual(names(catalog), ["get_books", "post_books", "get_books_isbn"]);
    assert.deepEqual(repairs(catalog), ['GET /books (get_books): repaired: parameter "author" in query is listed twice: the last one is kept']);
    assert.equal(schemaOf(catalog, "get_books").properties.author!.description, "Author name");
    assert.deepEqual(catalog.skipped.map((s) => `${s.method} ${s.path}: ${s.reason}`), ['DELETE /books/{isbn}: path parameter {isbn} is not declared in "parameters"']);
  });

  it("imports huge enumerations whole", async () => {
    const catalog = await wild("huge-enum.yaml");
    assert.deepEqual(names(catalog), ["getRate"]);
    const { properties } = schemaOf(catalog, "getRate");
    assert.equal((properties.from!.enum as unknown[]).length, 1200);
    assert.equal((properties.tz!.enum as unknown[]).length, 600);
    assert.deepEqual(catalog.warnings, []);
  });

  it("an operation whose repaired schema is still invalid is skipped with the validator's reason, not the document", async () => {
    const catalog = await catalogFromOpenApi({
      openapi: "3.0.3", info: { title: "t", version: "1" },
      paths: {
        "/ok": { get: { operationId: "fine", responses: { "200": { description: "ok" } } } },
        "/bad": { get: { operationId: "broken", parameters: [{ name: "q", in: "query", schema: { type: "text" } }], responses: { "200": { description: "ok" } } } },
      },
    });
    assert.deepEqual(names(catalog), ["fine"]);
    assert.equal(catalog.skipped[0]!.operationId, "broken");
    assert.match(catalog.skipped[0]!.reason, /its input schema is not valid: /);
  });
});

describe("toolsearch import openapi on published shapes", () => {
  it("exits 0 when anything was imported and says how many operations were skipped and why", () => {
    const out = tempFile("wild-catalog.json", "");
    const result = runCli(["import", "openapi", fixture("openapi-wild", "vendor-extension-broken-ref.yaml"), fixture("openapi-wild", "external-refs.yaml"), "--out", out]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /vendor-extension-broken-ref\.yaml: 3 tools from "Tunes API" \(OpenAPI 3\.0\)\n/);
    assert.match(result.stdout, /note: GET \/search \(searchCatalog\): repaired: "maximum": "50" is a string: read as the number 50/);
    assert.match(result.stdout, /external-refs\.yaml: 2 tools from "Shops API" \(OpenAPI 3\.0\), 2 operations skipped/);
    assert.match(result.stdout, /skipped GET \/shops\/\{id\}\/staff \(listStaff\): .*staff\.yaml#\/Role cannot be resolved \(no such file\)/);
    assert.equal((JSON.parse(readFileSync(out, "utf8")) as unknown[]).length, 5);
  });

  it("fails with openapi_invalid and every reason when no operation could be imported", () => {
    const result = runCli(["import", "openapi", fixture("openapi", "split", "missing-file.yaml"), "--json"]);
    assert.equal(result.code, 1);
    const error = JSON.parse(result.stderr || result.stdout).error as { code: string; message: string };
    assert.equal(error.code, "openapi_invalid");
    assert.match(error.message, /none of the 1 operation could be imported:\n.*GET \/x: .*nope\.yaml#\/Param cannot be resolved \(no such file\)/);
  });
});
