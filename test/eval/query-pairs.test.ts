import assert from "node:assert/strict";
import { test } from "node:test";
import { pairQueries } from "../../src/eval/query-pairs.js";

const q = (id: string, query: string, ...relevant: string[]) => ({ id, query, relevant });

test("each query is joined with one from half the file on whose answers differ, both answers relevant", () => {
  const queries = [q("a", "Find flights to Rome!", "flights"), q("b", "weather in Oslo", "weather"), q("c", "book a hotel?", "hotels"), q("d", "news today", "news")];
  assert.deepEqual(pairQueries(queries), [
    q("a+c", "Find flights to Rome. Also, book a hotel?", "flights", "hotels"),
    q("b+d", "weather in Oslo. Also, news today", "weather", "news"),
    q("c+a", "book a hotel. Also, Find flights to Rome!", "hotels", "flights"),
    q("d+b", "news today. Also, weather in Oslo", "news", "weather"),
  ]);
});

test("a partner sharing an answer is skipped for the next one; a query no other query can join makes no pair", () => {
  const queries = [q("a", "x", "t1"), q("b", "y", "t2"), q("c", "z", "t1", "t2")];
  // a: from index 1 on, b (t2) differs. b: c shares t2, a differs. c: every other query shares one of its answers.
  assert.deepEqual(pairQueries(queries).map((p) => [p.id, p.relevant]), [["a+b", ["t1", "t2"]], ["b+a", ["t2", "t1"]]]);
  assert.deepEqual(pairQueries([]), []);
});
