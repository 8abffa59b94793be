import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ToolsearchError } from "../../src/errors.js";
import type { OperationPlan } from "../../src/openapi/operations.js";
import { buildRequest } from "../../src/openapi/request.js";

const noAuth = { headers: {}, query: [], cookies: [] };

function plan(placements: OperationPlan["placements"], path = "/items"): OperationPlan {
  return { method: "GET", path, placements };
}

describe("building requests by OpenAPI parameter styles", () => {
  it("serializes query parameters by style: form (exploded or not), space/pipe delimited, deepObject, JSON content", () => {
    const request = buildRequest(plan([
      { arg: "tags", in: "query", name: "tags" },
      { arg: "include", in: "query", name: "include", style: "form", explode: false },
      { arg: "ids", in: "query", name: "ids", style: "pipeDelimited" },
      { arg: "words", in: "query", name: "words", style: "spaceDelimited" },
      { arg: "filter", in: "query", name: "filter", style: "deepObject" },
      { arg: "where", in: "query", name: "where", json: true },
    ]), {
      tags: ["a", "b"], include: ["patient", "doctor"], ids: [1, 2], words: ["x", "y"], filter: { room: "3", floor: 1 }, where: { age: { gt: 3 } },
    }, "http://127.0.0.1:1/base/", noAuth);
    const url = new URL(request.url);
    assert.equal(url.pathname, "/base/items");
    assert.deepEqual([...url.searchParams], [
      ["tags", "a"], ["tags", "b"], ["include", "patient,doctor"], ["ids", "1|2"], ["words", "x y"],
      ["filter[room]", "3"], ["filter[floor]", "1"], ["where", '{"age":{"gt":3}}'],
    ]);
  });

  it("fills path parameters in simple, label and matrix styles, and leaves out absent optional inputs", () => {
    const request = buildRequest(plan([
      { arg: "id", in: "path", name: "id" },
      { arg: "ver", in: "path", name: "ver", style: "label" },
      { arg: "lang", in: "path", name: "lang", style: "matrix" },
      { arg: "q", in: "query", name: "q" },
    ], "/docs/{id}/{ver}/{lang}"), { id: ["a", "b"], ver: "2", lang: "en" }, "http://127.0.0.1:1", noAuth);
    assert.equal(request.url, "http://127.0.0.1:1/docs/a,b/.2/;lang=en");
  });

  it("places credentials beside the parameters, and sends no body for a GET", () => {
    const request = buildRequest(plan([{ arg: "h", in: "header", name: "X-Trace" }, { arg: "c", in: "cookie", name: "pref" }]), { h: ["1", "2"], c: "dark" }, "http://127.0.0.1:1", {
      headers: { Authorization: "Bearer t" }, query: [["key", "k"]], cookies: [["sid", "s 1"]],
    });
    assert.equal(request.headers["X-Trace"], "1,2");
    assert.equal(request.headers.Authorization, "Bearer t");
    assert.equal(request.headers.cookie, "pref=dark; sid=s%201");
    assert.equal(new URL(request.url).searchParams.get("key"), "k");
    assert.equal(request.body, undefined);
  });

  it("refuses inputs that would change the request's shape: dot segments in a path, line breaks in a header", () => {
    const segment = plan([{ arg: "id", in: "path", name: "id" }], "/patients/{id}");
    for (const id of ["..", ".", ""]) {
      assert.throws(() => buildRequest(segment, { id }, "http://127.0.0.1:1", noAuth), (e: ToolsearchError) => e.code === "invalid_arguments" && /id must not be empty, "\." or "\.\."/.test(e.message));
    }
    assert.equal(buildRequest(segment, { id: "../admin" }, "http://127.0.0.1:1", noAuth).url, "http://127.0.0.1:1/patients/..%2Fadmin");
    const header = plan([{ arg: "trace", in: "header", name: "X-Trace" }]);
    assert.throws(() => buildRequest(header, { trace: "a\r\nX-Admin: 1" }, "http://127.0.0.1:1", noAuth), /trace must not contain line breaks: it is sent as the header X-Trace/);
  });
});
