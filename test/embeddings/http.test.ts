import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { HttpEmbeddingProvider } from "../../src/embeddings/http.js";

/**
 * A loopback server speaking OpenAI's `/v1/embeddings` wire format. Each test scripts the status codes it answers
 * with; a vector is the text's length followed by zeros, so the order of results can be checked.
 */
interface Call {
  auth?: string;
  body: { model: string; input: string[] };
}
let calls: Call[] = [];
let script: Array<number | "hang"> = [];
let server: Server;
let baseUrl: string;

const DIMS = 4;

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  const parsed = JSON.parse(body) as Call["body"];
  calls.push({ auth: req.headers.authorization, body: parsed });
  const step = script.shift() ?? 200;
  if (step === "hang") return; // never answers: the client must time out
  if (step !== 200) {
    res.writeHead(step, { "content-type": "application/json", ...(step === 429 ? { "retry-after": "0" } : {}) });
    res.end(JSON.stringify({ error: { message: step === 400 ? "input must not be empty" : `status ${step}`, type: "invalid_request_error" } }));
    return;
  }
  const inputs = Array.isArray(parsed.input) ? parsed.input : [parsed.input];
  const data = inputs.map((text, index) => ({ object: "embedding", index, embedding: [text.length, 0, 0, 0].slice(0, DIMS) }));
  data.reverse(); // servers may answer out of order; `index` says where each belongs
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ object: "list", data, model: parsed.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
}

before(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => answer(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const provider = (extra: Partial<ConstructorParameters<typeof HttpEmbeddingProvider>[0]> = {}) =>
  new HttpEmbeddingProvider({ baseUrl, model: "text-embedding-3-small", dimensions: DIMS, apiKey: "sk-test", backoffMs: 1, ...extra });

const reset = (steps: Array<number | "hang"> = []) => {
  calls = [];
  script = steps;
};

test("the fake speaks the real wire format: the official OpenAI SDK reads its answers", async () => {
  reset();
  const client = new OpenAI({ baseURL: baseUrl, apiKey: "sk-test", maxRetries: 0 });
  const response = await client.embeddings.create({ model: "text-embedding-3-small", input: ["abc"], encoding_format: "float" });
  assert.deepEqual(response.data[0].embedding, [3, 0, 0, 0]);
});

test("texts go in batches, with the model and the key; results keep input order", async () => {
  reset();
  const texts = ["a", "bb", "ccc", "dddd", "eeeee"];
  const vectors = await provider({ batchSize: 2 }).embed(texts);
  assert.deepEqual(calls.map((c) => c.body.input), [["a", "bb"], ["ccc", "dddd"], ["eeeee"]]);
  assert.ok(calls.every((c) => c.auth === "Bearer sk-test" && c.body.model === "text-embedding-3-small"));
  assert.deepEqual(vectors.map((v) => v[0]), [1, 2, 3, 4, 5]);
  assert.ok(vectors[0] instanceof Float32Array);
});

test("429 and 5xx are retried with backoff until the server answers", async () => {
  reset([429, 503, 500]);
  const vectors = await provider({ retries: 4 }).embed(["hello"]);
  assert.equal(calls.length, 4);
  assert.equal(vectors[0][0], 5);
});

test("a 4xx other than 429 fails at once with the server's message", async () => {
  reset([400]);
  await assert.rejects(provider().embed(["x"]), (error: Error & { code?: string }) => {
    assert.equal(error.code, "embedding_failed");
    assert.match(error.message, /HTTP 400: input must not be empty/);
    assert.match(error.message, /text-embedding-3-small/);
    return true;
  });
  assert.equal(calls.length, 1);
});

test("retries end: the error says how many attempts were made", async () => {
  reset([502, 502, 502]);
  await assert.rejects(provider({ retries: 2 }).embed(["x"]), /after 3 attempts: HTTP 502/);
  assert.equal(calls.length, 3);
});

test("a request that gets no answer times out", async () => {
  reset(["hang"]);
  await assert.rejects(provider({ retries: 0, timeoutMs: 150 }).embed(["x"]), /no answer within 150 ms/);
});

test("vectors of the wrong size are refused", async () => {
  reset();
  await assert.rejects(provider({ dimensions: 8 }).embed(["x"]), /expected 1 embeddings of 8 dimensions, got 1 of 4/);
});

test("a server that is not there fails clearly after its retries", async () => {
  const spare = createServer();
  await new Promise<void>((resolve) => spare.listen(0, "127.0.0.1", resolve));
  const port = (spare.address() as AddressInfo).port;
  await new Promise<void>((resolve) => spare.close(() => resolve()));
  const closed = new HttpEmbeddingProvider({ baseUrl: `http://127.0.0.1:${port}/v1`, model: "m", dimensions: DIMS, retries: 1, backoffMs: 1 });
  await assert.rejects(closed.embed(["x"]), /after 2 attempts: request failed \(ECONNREFUSED\)/);
});
