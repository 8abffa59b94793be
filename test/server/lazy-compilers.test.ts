import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify from "fastify";
import { compilePendingSchemas } from "../../src/server/app.js";
import { lazyCompilers } from "../../src/server/lazy-compilers.js";
import { makeService } from "./helpers.js";

test("every route schema of the service compiles (they compile on first use, so a bad one would only show then)", async () => {
  const service = await makeService();
  try {
    await service.app.ready();
    const compiled = compilePendingSchemas(service.app);
    assert.ok(compiled > 50, `expected the service's validators and serializers to be pending at start, got ${compiled}`);
    assert.equal(compilePendingSchemas(service.app), 0, "a second call has nothing left to compile");
  } finally {
    await service.close();
  }
});

test("a route compiled lazily validates, refuses and serializes as fastify's own compilers do", async () => {
  const compilers = lazyCompilers();
  const app = Fastify({ ajv: { customOptions: { removeAdditional: false } }, schemaController: { compilersFactory: compilers as never } });
  app.addSchema({ $id: "limit", type: "integer", minimum: 1 });
  app.post("/echo", {
    schema: {
      body: { type: "object", properties: { limit: { $ref: "limit#" }, query: { type: "string" } }, required: ["query"], additionalProperties: false },
      response: { 200: { type: "object", properties: { query: { type: "string" }, limit: { type: "integer" } } } },
    },
  }, async (request) => ({ ...(request.body as object), secret: "not in the response schema" }));
  await app.ready();
  const ok = await app.inject({ method: "POST", url: "/echo", payload: { query: "mail", limit: 3 } });
  assert.equal(ok.statusCode, 200);
  assert.deepEqual(ok.json(), { query: "mail", limit: 3 }, "the response schema drops the undeclared field");
  const missing = await app.inject({ method: "POST", url: "/echo", payload: { limit: 3 } });
  assert.equal(missing.statusCode, 400);
  assert.match(missing.json().message, /must have required property 'query'/);
  const extra = await app.inject({ method: "POST", url: "/echo", payload: { query: "mail", engnie: "x" } });
  assert.equal(extra.statusCode, 400, "an unknown field is refused, not removed");
  const bad = await app.inject({ method: "POST", url: "/echo", payload: { query: "mail", limit: 0 } });
  assert.equal(bad.statusCode, 400, "the shared schema ($ref) applies");
  assert.match(bad.json().message, /must be >= 1/);
  assert.equal(compilers.compilePending(), 0, "the route's validator and serializer were built by its requests");
  await app.close();
});
