/**
 * `GET/POST /v1/collections/{c}/review` on a real service over a real stdio MCP server (drifting-server.mjs) whose
 * tools change between two starts: the collection keeps serving the pinned definition, review shows the diff,
 * approving serves the new one. Admin scope only; a `tools` collection has nothing to review.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ROOT } from "../mcp/helpers.js";
import { makeService, type TestService } from "./helpers.js";

const SERVER = join(ROOT, "test", "fixtures", "mcp", "drifting-server.mjs");
const object = (properties: Record<string, object> = {}) => ({ type: "object", properties });
const ECHO = { name: "echo", description: "Echoes the given text back.", inputSchema: object({ text: { type: "string" } }) };
const ECHO_V2 = { name: "echo", description: "Echoes the given text back, upper-cased when asked.", inputSchema: object({ text: { type: "string" }, upper: { type: "boolean" } }) };

describe("review of an mcp collection's held definitions", () => {
  let s: TestService;
  let toolsFile: string;
  const put = (version: string) => s.app.inject({
    method: "PUT", url: "/v1/collections/math", headers: s.auth(s.keys.admin),
    // A changed block (the env) makes the server start again at once and list its tools.
    payload: { kind: "mcp", mcpServers: { math: { command: process.execPath, args: [SERVER], env: { DRIFT_TOOLS_FILE: toolsFile, VERSION: version } } } },
  });
  const descriptionServed = async () => {
    const answer = await s.app.inject({ method: "POST", url: "/v1/collections/math/search", headers: s.auth(s.keys.read), payload: { query: "echoes text back", limit: 5 } });
    return (answer.json() as { results: { name: string; description: string }[] }).results.find((r) => r.name === "math__echo")?.description;
  };
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 100));
  };

  before(async () => {
    s = await makeService();
    toolsFile = join(s.dir, "tools.json");
  });
  after(async () => s?.close());

  it("keeps serving the pinned definition, shows the diff, and serves the new one once approved", async () => {
    writeFileSync(toolsFile, JSON.stringify([ECHO]));
    assert.equal((await put("1")).statusCode, 201);
    await until(async () => (await descriptionServed()) !== undefined);
    assert.equal(await descriptionServed(), ECHO.description);

    writeFileSync(toolsFile, JSON.stringify([ECHO_V2]));
    assert.equal((await put("2")).statusCode, 200);
    const held = async () => (await s.app.inject({ method: "GET", url: "/v1/collections/math/review", headers: s.auth(s.keys.admin) })).json() as { held: { name: string; reason: string; diff: { description: { op: string; text: string }[]; schema: { op: string; text: string }[] } }[] };
    await until(async () => (await held()).held.length > 0);
    const review = await held();
    assert.deepEqual(review.held.map((h) => [h.name, h.reason]), [["math__echo", "changed"]]);
    assert.deepEqual(review.held[0].diff.description.filter((p) => p.op !== "same").map((p) => [p.op, p.text]), [["removed", "back."], ["added", "back, upper-cased when asked."]]);
    assert.ok(review.held[0].diff.schema.some((p) => p.op === "added" && p.text.includes('"upper"')));
    assert.equal(await descriptionServed(), ECHO.description, "the pinned definition keeps being served");

    const forbidden = await s.app.inject({ method: "GET", url: "/v1/collections/math/review", headers: s.auth(s.keys.write) });
    assert.equal(forbidden.statusCode, 403);
    const unknown = await s.app.inject({ method: "POST", url: "/v1/collections/math/review", headers: s.auth(s.keys.admin), payload: { approve: ["math__nope"] } });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.code, "unknown_tool");

    const approved = await s.app.inject({ method: "POST", url: "/v1/collections/math/review", headers: s.auth(s.keys.admin), payload: { approve: ["math__echo"] } });
    assert.equal(approved.statusCode, 200, approved.body);
    assert.deepEqual(approved.json().held, []);
    await until(async () => (await descriptionServed()) === ECHO_V2.description);
    assert.equal(await descriptionServed(), ECHO_V2.description);
  });

  it("refuses a tools collection with conflict", async () => {
    await s.app.inject({ method: "PUT", url: "/v1/collections/plain", headers: s.auth(s.keys.admin), payload: { kind: "tools", tools: [] } });
    const answer = await s.app.inject({ method: "GET", url: "/v1/collections/plain/review", headers: s.auth(s.keys.admin) });
    assert.equal(answer.statusCode, 409);
    assert.equal(answer.json().error.code, "conflict");
  });
});
