import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before as nodeBefore, test as nodeTest } from "node:test";
import { Embedder } from "../../src/embeddings/embedder.js";
import { OnnxEmbeddingProvider } from "../../src/embeddings/onnx.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { FIXTURE_TOOLS, tempDir } from "./helpers.js";
import { buildTinyModel } from "./tiny-onnx.js";

/**
 * `@huggingface/transformers` is an optional dependency: npm leaves it out when it cannot be installed. These tests
 * then skip and say why, rather than fail a suite whose other engines are all there.
 */
const transformersMissing = await import("@huggingface/transformers").then(
  () => false,
  () => "the optional dependency @huggingface/transformers is not installed",
);
const test = transformersMissing ? (name: string, _fn: unknown) => nodeTest(name, { skip: transformersMissing }) : nodeTest;
const before = transformersMissing ? () => {} : nodeBefore;

let folder: string;
let provider: OnnxEmbeddingProvider;

before(async () => {
  folder = join(tempDir(), "tiny-encoder");
  buildTinyModel(folder);
  provider = await OnnxEmbeddingProvider.load(folder);
});

test("a local ONNX model folder loads offline, with its vector length read off the model", () => {
  assert.equal(provider.dimensions, 8);
  assert.match(provider.id, /^onnx:tiny-encoder:[0-9a-f]{12}:mean$/);
});

test("vectors are mean-pooled, normalized and in input order", async () => {
  const [rain, stock] = await provider.embed(["rain forecast", "stock price"]);
  assert.ok(rain instanceof Float32Array && rain.length === 8);
  const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  assert.ok(Math.abs(norm(rain) - 1) < 1e-5);
  assert.ok(rain[1] > 0.9 && stock[0] > 0.9);
});

test("semantic search through the ONNX provider", async () => {
  const index = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(provider, { cache: false }) });
  assert.equal((await index.search("will it rain tomorrow", { engine: "semantic", limit: 1 }))[0].name, "get_weather_forecast");
  assert.equal((await index.search("latest equity prices", { engine: "semantic", limit: 1 }))[0].name, "get_stock_price");
});

test("a folder without a model is refused clearly", async () => {
  const empty = join(tempDir(), "not-a-model");
  mkdirSync(empty);
  writeFileSync(join(empty, "config.json"), "{}");
  await assert.rejects(OnnxEmbeddingProvider.load(empty), { code: "embedding_failed", message: /not an ONNX model folder/ });
});
