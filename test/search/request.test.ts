import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolsearchError } from "../../src/errors.js";
import { DEFAULT_SETS } from "../../src/indexes/tool-index-options.js";
import { FEATURE_NAMES, LEXICAL_FEATURES } from "../../src/ranking/features.js";
import { rankerModels, searchRequest, syncSearchRequest } from "../../src/search/request.js";

const models = {
  hybrid: { features: [...FEATURE_NAMES], weights: FEATURE_NAMES.map(() => 1) },
  lexical: { features: [...LEXICAL_FEATURES], weights: LEXICAL_FEATURES.map(() => 1) },
};

const code = (code: string) => (e: unknown) => e instanceof ToolsearchError && e.code === code;

describe("search request", () => {
  it("checks the limit before the engine, and refuses a dense engine on the synchronous path", () => {
    assert.throws(() => searchRequest({ limit: 0, engine: "nope" as never }, models), code("invalid_option"));
    assert.throws(() => searchRequest({ limit: 51 }, models), code("invalid_option"));
    assert.throws(() => searchRequest({ engine: "nope" as never }, models), code("unknown_engine"));
    assert.throws(() => syncSearchRequest({ engine: "hybrid" }, models), (e) => code("unknown_engine")(e) && /search\(\) \(async\)/.test((e as Error).message));
    assert.equal(syncSearchRequest({ engine: "regex", limit: 3 }, models).limit, 3);
  });

  it("resolves each engine's defaults: tool sets, model, and the learned usage signal", () => {
    const bm25 = searchRequest({}, models);
    assert.deepEqual([bm25.engine, bm25.limit, bm25.sets, bm25.model], ["bm25", 5, DEFAULT_SETS.bm25, models.lexical]);
    const hybrid = searchRequest({ engine: "hybrid", sets: { groups: true } }, models);
    assert.deepEqual([hybrid.sets, hybrid.model], [{ clauses: DEFAULT_SETS.hybrid.clauses, groups: true }, models.hybrid]);
    assert.equal(searchRequest({ engine: "hybrid", ranker: false }, models).model, undefined);
    assert.deepEqual(searchRequest({ sets: false }, models).sets, { clauses: false, groups: false });
    for (const engine of ["regex", "semantic"] as const) {
      const r = searchRequest({ engine, sets: true, learned: true }, models);
      assert.deepEqual([r.sets, r.model, r.learned], [{ clauses: false, groups: false }, undefined, false], engine);
    }
  });

  it("turns the ranker off where the index's options choose the scoring", () => {
    const model = { version: 1 as const, ...models };
    assert.deepEqual(rankerModels({ ranker: model }), models);
    assert.deepEqual(rankerModels({ ranker: false }), {});
    assert.deepEqual(rankerModels({ ranker: model, bm25: { k1: 1 } }), { hybrid: undefined, lexical: undefined });
    assert.deepEqual(rankerModels({ ranker: model, fusion: { method: "rrf" } }), { hybrid: undefined, lexical: models.lexical });
  });
});
