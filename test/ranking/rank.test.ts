/**
 * `explainLearned` (src/ranking/rank.ts) computes the features once for both what `explain` needs: the learned
 * ranking of the candidates and the parts of one candidate's score. It must give what the two separate computations
 * gave: the ranking `rankLearned` gives, and for the candidate the score and parts of its own feature row.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Embedder } from "../../src/embeddings/embedder.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { FEATURE_NAMES, featureRows, LEXICAL_FEATURES } from "../../src/ranking/features.js";
import { contributions, type RankerModel, scoreRow } from "../../src/ranking/model.js";
import { explainLearned, rankLearned } from "../../src/ranking/rank.js";
import { LetterProvider } from "../helpers/letter-provider.js";
import { rankerTools } from "../helpers/ranker-tools.js";

const tools = rankerTools();
/** Made-up weights on every feature: what is tested is how the model is applied. */
const model: RankerModel = {
  version: 1,
  hybrid: { features: [...FEATURE_NAMES], weights: FEATURE_NAMES.map((_, i) => ((i % 5) - 2) * 0.7 + 0.1) },
  lexical: { features: [...LEXICAL_FEATURES], weights: LEXICAL_FEATURES.map((_, i) => ((i % 3) - 1) * 0.9 + 0.2) },
};
const index = new ToolIndex(tools, { bm25: { fit: false }, embedder: new Embedder(new LetterProvider()), ranker: model });

describe("explainLearned", () => {
  for (const engine of ["bm25", "hybrid"] as const) {
    for (const query of ["weather in a city", "stock price chart", "send a message"]) {
      it(`${engine}: the ranking and each candidate's parts are those of separate computations: ${JSON.stringify(query)}`, async () => {
        const learned = (await index.rankerEvidence(query, { engine }))!;
        const { kind, evidence } = learned;
        const linear = learned.model!;
        const rows = featureRows(evidence);
        for (const [at, candidate] of evidence.candidates.entries()) {
          const explained = explainLearned(kind, linear, evidence, candidate.id);
          assert.deepEqual(explained.ranked, rankLearned(linear, evidence));
          assert.deepEqual(explained.ranker, { model: kind, score: scoreRow(linear, rows[at]), features: contributions(linear, rows[at]) });
          assert.equal(explained.ranker!.score, explained.ranked.find((r) => r.id === candidate.id)!.score, "the part explained is the score ranked");
        }
        const outsider = explainLearned(kind, linear, evidence, "not_a_candidate");
        assert.equal(outsider.ranker, undefined);
        assert.deepEqual(outsider.ranked, rankLearned(linear, evidence));
      });
    }
  }

  it("explain places and explains a tool as search ranks it", async () => {
    for (const engine of ["bm25", "hybrid"] as const) {
      const hits = await index.search("weather in a city", { engine, limit: 10 });
      for (const [at, hit] of hits.entries()) {
        const why = await index.explain("weather in a city", hit.name, { engine });
        assert.equal(why.rank, at + 1, `${engine}: ${hit.name}`);
        assert.equal(why.ranker?.score, hit.score);
      }
    }
  });
});
