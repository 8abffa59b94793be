/**
 * Specs as vendors publish them (issue 38): `$ref`s inside `x-…` vendor extensions are never followed, and a pointer
 * that resolves to nothing costs only the operations that use it. The fixture (test/fixtures/openapi/vendor/) has the
 * structure of Spotify's published spec: a policy list per operation and per schema property whose `$ref`s point into
 * `components.x-vendor-policy`, itself a `$ref` to a file that is not there; strings for booleans and numbers; a real
 * reference to another file (so the document is bundled); and one operation whose body points to nothing.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { catalogFromOpenApi } from "../../src/openapi/catalog.js";
import { detachExtensionRefs } from "../../src/openapi/extensions.js";
import { runCli } from "../helpers/cli.js";
import { fixture, tempFile } from "../helpers/files.js";

const SPEC = fixture("openapi", "vendor", "api.json");

describe("vendor extensions and broken pointers", () => {
  it("imports every operation but the one with a broken pointer, naming each repair and the skip", async () => {
    const catalog = await catalogFromOpenApi(SPEC);
    assert.deepEqual(catalog.tools.map((t) => t.name), ["get-an-album", "save-tracks-user"]);
    assert.deepEqual(catalog.skipped.map((s) => s.operationId), ["upload-playlist-cover"]);
    assert.match(catalog.skipped[0]!.reason, /\$ref #\/components\/schemas\/CoverUpload cannot be resolved \(nothing at #\/components\/schemas\/CoverUpload in the document\)/);
    assert.deepEqual(catalog.warnings.slice(0, 3), [
      "repaired: vendor extension x-vendor-policy-list in 2 places, first at #/paths/~1albums~1{id}/get holds a $ref, which is not followed (extensions are not schema): left out",
      "repaired: vendor extension x-vendor-policy at #/components holds a $ref, which is not followed (extensions are not schema): left out",
      "$ref #/components/schemas/CoverUpload at #/paths/~1playlists~1{id}~1cover/put/requestBody/content/application~1json/schema cannot be resolved (nothing at #/components/schemas/CoverUpload in the document): operations that use it are skipped",
    ]);
    assert.ok(!catalog.warnings.some((w) => w.includes("policies.yaml")), "the extension's file is never looked for");
  });

  it("reads booleans and numbers written as strings as what they spell, each repair told", async () => {
    const catalog = await catalogFromOpenApi(SPEC);
    const album = catalog.tools[0]!.input_schema as { required: string[]; properties: Record<string, { pattern?: string }> };
    assert.deepEqual(album.required, ["id"], '"required": "false" is not a required parameter');
    assert.equal(album.properties.id!.pattern, "^[0-9A-Za-z]{22}$", "the other file's schema is bundled");
    const body = (catalog.tools[1]!.input_schema as { required: string[]; properties: { body: Record<string, unknown> & { properties: Record<string, { maxItems?: number; properties?: Record<string, unknown> }> } } });
    assert.deepEqual(body.required, ["body"]);
    assert.equal(body.properties.body.additionalProperties, true);
    assert.equal(body.properties.body.properties.ids!.maxItems, 50);
    assert.deepEqual(Object.keys(body.properties.body.properties.track!.properties!), ["name", "preview_url", "x-request-id"], "a property named x-… is a name, not an extension");
    assert.ok(!JSON.stringify(catalog.tools).includes("x-vendor-policy"), "no extension reaches a tool");
    for (const note of [
      'GET /albums/{id} (get-an-album): repaired: "required": "false" is a string: read as false',
      'PUT /me/tracks (save-tracks-user): repaired: "required": "true" is a string: read as true',
      'PUT /me/tracks (save-tracks-user): repaired: "additionalProperties": "true" is a string: read as true',
      'PUT /me/tracks (save-tracks-user): repaired: "maxItems": "50" is a string: read as the number 50',
    ]) assert.ok(catalog.warnings.includes(note), note);
  });

  it("toolsearch import openapi exits 0 and reports the skip and the notes", () => {
    const out = tempFile("vendor-catalog.json", "");
    const { code, stdout, stderr } = runCli(["import", "openapi", SPEC, "--out", out]);
    assert.equal(code, 0, stderr);
    const report = stdout + stderr;
    assert.match(report, /2 tools from "Tunes".*1 operation skipped/);
    assert.match(report, /skipped PUT \/playlists\/\{id\}\/cover \(upload-playlist-cover\): .*#\/components\/schemas\/CoverUpload/);
    assert.match(report, /note: repaired: vendor extension x-vendor-policy-list/);
  });

  it("leaves names and data alone: only fields called x-… are extensions", () => {
    const doc = {
      paths: { "/a": { get: { "x-list": [{ $ref: "#/x" }], "x-plain": "kept", responses: { "x-resp": { $ref: "#/y" } } } } },
      components: {
        schemas: { "x-named": { type: "object", properties: { "x-id": { $ref: "#/components/schemas/Id" } }, example: { "x-data": { $ref: "data" } } } },
        headers: { "x-rate-limit": { schema: { $ref: "#/components/schemas/Id" } } },
      },
    };
    const dropped = detachExtensionRefs(doc);
    assert.deepEqual(dropped.map((d) => `${d.at} ${d.name}`), ["#/paths/~1a/get x-list", "#/paths/~1a/get/responses x-resp"]);
    assert.equal(doc.paths["/a"].get["x-plain"], "kept", "an extension without a reference is kept");
    assert.ok(doc.components.schemas["x-named"].properties["x-id"], "a property name");
    assert.ok(doc.components.headers["x-rate-limit"], "a header name");
    assert.ok(doc.components.schemas["x-named"].example["x-data"], "example data");
  });
});

