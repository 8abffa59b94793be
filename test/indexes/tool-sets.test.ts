import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GROUP_LIFT, groupOf, liftGroups, mergeClauses, taskClauses } from "../../src/indexes/tool-sets.js";
import { normalizeTools } from "../../src/catalog/load.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import type { ToolSearchOptions } from "../../src/indexes/tool-index-options.js";
import { Embedder } from "../../src/embeddings/embedder.js";
import { LetterProvider } from "../helpers/letter-provider.js";

const tool = (name: string, description: string, category?: string) => ({ name, description, input_schema: { type: "object", properties: {} }, ...(category ? { category } : {}) });

/** Tools of a few servers, for requests that need a news tool and a finance tool. */
const NEWS_AND_FINANCE = [
  tool("news__headlines", "Latest news headlines about a company or topic"),
  tool("news__archive", "Search old news articles by keyword"),
  tool("news__search", "Search news articles and news headlines about a company"),
  tool("blog__posts", "Latest blog posts and news commentary about a company"),
  tool("finance__quote", "Stock quote: the current share price of a listed company"),
  tool("finance__chart", "Chart of a share price over time"),
  tool("weather__now", "Current weather for a city"),
];

describe("taskClauses", () => {
  it("splits a request of several parts, and leaves a one-part request whole", () => {
    assert.deepEqual(taskClauses("find the latest news about Tesla and chart its stock price this week"), ["find the latest news about Tesla", "chart its stock price this week"]);
    assert.deepEqual(taskClauses("Book a flight to Paris. Then reserve a hotel near the Louvre."), ["Book a flight to Paris", "reserve a hotel near the Louvre"], "a leading connective is dropped");
    assert.deepEqual(taskClauses("weather in Paris"), []);
    assert.deepEqual(taskClauses("salt and pepper shakers for sale"), [], "a short side is no clause of its own");
  });

  it("keeps a number with a thousands comma whole and leaves quotation marks out of the clauses", () => {
    assert.deepEqual(
      taskClauses("Calculate the compound interest on $10,000 at 5% for 5 years, and check the discounts on shares of Company X"),
      ["Calculate the compound interest on $10,000 at 5% for 5 years", "check the discounts on shares of Company X"],
    );
    assert.deepEqual(
      taskClauses("\"Can you tell me the exchange rate between USD and EUR? Also, which airlines fly from New York to London?\""),
      ["Can you tell me the exchange rate between USD", "which airlines fly from New York to London"],
    );
  });
});

describe("mergeClauses", () => {
  it("returns the whole request's ranking unchanged without clauses", () => {
    const whole = [{ id: "a", score: 3 }, { id: "b", score: 1 }];
    assert.equal(mergeClauses(whole, []), whole);
  });

  it("lifts the best tool of a clause above tools that match only the loud part of the request", () => {
    const whole = [{ id: "news", score: 9 }, { id: "blog", score: 6 }, { id: "stock", score: 5 }, { id: "x", score: 1 }];
    const clauses = [[{ id: "news", score: 5 }, { id: "blog", score: 2 }, { id: "x", score: 0 }], [{ id: "stock", score: 6 }, { id: "x", score: 0 }]];
    const merged = mergeClauses(whole, clauses);
    assert.deepEqual(merged.map((h) => h.id), ["news", "stock", "blog", "x"]);
    assert.equal(merged[1].score, 0.5 + 1, "its share of the whole (0.5) plus its clause's best share (1)");
  });
});

describe("liftGroups", () => {
  it("lifts a tool by its group's best other member, and leaves ungrouped tools alone", () => {
    const ranked = [{ id: "gh__search", score: 10 }, { id: "gl__merge", score: 6 }, { id: "gh__pr", score: 5 }, { id: "lone", score: 0 }];
    const group = (id: string) => (id.includes("__") ? id.split("__")[0] : undefined);
    const lifted = liftGroups(ranked, group);
    assert.deepEqual(lifted.map((h) => h.id), ["gh__search", "gh__pr", "gl__merge", "lone"]);
    assert.equal(lifted.find((h) => h.id === "gh__pr")!.score, 5 + GROUP_LIFT * 10);
    assert.equal(lifted.find((h) => h.id === "gh__search")!.score, 10 + GROUP_LIFT * 5, "the leader is lifted by its runner-up");
    assert.equal(lifted.find((h) => h.id === "gl__merge")!.score, 6);
  });

  it("groups tools by server prefix, else by category", () => {
    const index = new ToolIndex(normalizeTools([tool("github__create_issue", "Create an issue"), tool("convert", "Convert units", "math")]));
    assert.equal(groupOf(index.get("github__create_issue")!), "server:github");
    assert.equal(groupOf(index.get("convert")!), "category:math");
  });
});

describe("ToolIndex search with sets", () => {
  const index = new ToolIndex(normalizeTools(NEWS_AND_FINANCE), { bm25: { fit: false } });
  const query = "show the latest news headlines about Tesla and chart its share price over the year";

  it("with clauses, ranks the request merged with each clause's own ranking", () => {
    const clauses = taskClauses(query);
    assert.equal(clauses.length, 2);
    const rank = (text: string) => index.searchSync(text, { limit: 50 }).map((h) => ({ id: h.name, score: h.score }));
    const expected = mergeClauses(rank(query), clauses.map(rank)).slice(0, 3).map((h) => h.id);
    assert.deepEqual(index.searchSync(query, { limit: 3, sets: { clauses: true } }).map((h) => h.name), expected);
    assert.ok(expected.includes("finance__chart") && expected.includes("news__headlines"));
  });

  it("with groups, lifts the sibling of a strong tool", () => {
    const plain = index.searchSync("latest headlines", { limit: 6 }).map((h) => h.name);
    const lifted = index.searchSync("latest headlines", { limit: 6, sets: { groups: true } }).map((h) => h.name);
    assert.deepEqual(plain.slice(0, 2), ["news__headlines", "blog__posts"]);
    assert.deepEqual(lifted.slice(0, 2), ["news__headlines", "news__search"], "the leader's sibling passes the other server's tool");
  });

  it("leaves the ranking as it was when sets are off", () => {
    assert.deepEqual(index.searchSync(query, { limit: 6 }), index.searchSync(query, { limit: 6, sets: false }));
  });
});

describe("tool sets in hybrid (clauses on by default)", () => {
  const tools = normalizeTools([...NEWS_AND_FINANCE, tool("maps__route", "Driving route between two places")]);
  // The clause ranking as such: without the learned ranker, which re-ranks it (test/ranking/model.test.ts).
  const index = new ToolIndex(tools, { bm25: { fit: false }, embedder: new Embedder(new LetterProvider()), ranker: false });
  const multi = "show the latest news headlines about Tesla and chart its share price over the year";
  const single = ["weather in Paris", "driving route between two cities", "stock quote for a listed company"];
  const ranked = async (query: string, options: ToolSearchOptions) =>
    (await index.search(query, { engine: "hybrid", limit: 50, ...options })).map((h) => ({ id: h.name, score: h.score }));

  it("ranks a one-clause request exactly as without tool sets, ids and scores", async () => {
    for (const query of single) {
      assert.deepEqual(taskClauses(query), []);
      assert.deepEqual(await index.search(query, { engine: "hybrid", limit: 8 }), await index.search(query, { engine: "hybrid", limit: 8, sets: false }), query);
    }
  });

  it("fuses each clause on its own (its words and its own vector), then merges the fused lists", async () => {
    const clauses = taskClauses(multi);
    assert.equal(clauses.length, 2);
    const expected = mergeClauses(await ranked(multi, { sets: false }), await Promise.all(clauses.map((c) => ranked(c, { sets: false }))));
    assert.deepEqual(await ranked(multi, {}), expected);
    assert.notDeepEqual(expected, await ranked(multi, { sets: false }), "the clauses change this ranking");
    assert.deepEqual(await ranked(multi, { sets: { clauses: false } }), await ranked(multi, { sets: false }), "the off switch");
  });

  it("explain shows the clause and group parts, and its rank and score are search's", async () => {
    for (const sets of [undefined, true, { groups: true }, { clauses: false, groups: true }] as ToolSearchOptions["sets"][]) {
      const hits = await ranked(multi, { sets });
      for (const [at, hit] of hits.entries()) {
        const why = await index.explain(multi, hit.id, { engine: "hybrid", sets });
        assert.equal(why.rank, at + 1, `${hit.id} with ${JSON.stringify(sets)}`);
        assert.ok(close(why.score, hit.score), `${hit.id}: ${why.score} vs ${hit.score}`);
        const clauses = why.sets?.clauses;
        const parts = (clauses ? clauses.whole + Math.max(...clauses.parts.map((p) => p.share)) : sum(why.parts)) + (why.sets?.group?.lift ?? 0);
        assert.ok(close(parts, why.score), `${hit.id}: the parts add up to ${parts}, not ${why.score}`);
        assert.equal(clauses?.parts.length, typeof sets === "object" && sets.clauses === false ? undefined : 2, "a part not named keeps its default");
      }
    }
    const lifted = await index.explain(multi, "news__search", { engine: "hybrid", sets: true });
    assert.equal(lifted.sets?.group?.name, "server:news");
  });

  it("explain for bm25 with sets matches search", async () => {
    const hits = index.searchSync(multi, { limit: 50, sets: true });
    for (const [at, hit] of hits.entries()) {
      const why = await index.explain(multi, hit.name, { sets: true });
      assert.equal(why.rank, at + 1);
      assert.ok(close(why.score, hit.score));
      assert.ok(close(why.sets!.clauses!.whole + Math.max(...why.sets!.clauses!.parts.map((p) => p.share)) + (why.sets?.group?.lift ?? 0), why.score));
    }
    assert.equal((await index.explain(multi, "finance__chart")).sets, undefined, "bm25 keeps sets off by default");
  });
});

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
const sum = (values: { contribution: number }[] = []) => values.reduce((total, v) => total + v.contribution, 0);
