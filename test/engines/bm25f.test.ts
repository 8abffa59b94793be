import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Bm25fIndex } from "../../src/engines/bm25f.js";

const fields = [{ name: "title", weight: 3, b: 0.5 }, { name: "body", weight: 1 }];
const docs: Record<string, string[][]> = {
  weather: [["weather"], ["current", "weather", "temperature", "city"]],
  forecast: [["forecast"], ["weather", "forecast", "rain", "tomorrow"]],
  stock: [["stock", "price"], ["latest", "stock", "price", "ticker"]],
  news: [["news"], ["company", "news", "articles", "stock"]],
};

function build(ids = Object.keys(docs)) {
  const index = new Bm25fIndex({ fields });
  for (const id of ids) index.add(id, docs[id]);
  return index;
}

describe("Bm25fIndex", () => {
  it("ranks a title match above a body-only match", () => {
    const hits = build().search(["stock"], 5);
    assert.deepEqual(hits.map((h) => h.id), ["stock", "news"]);
    assert.ok(hits[0].score > hits[1].score);
  });

  it("breaks equal scores by id", () => {
    const index = new Bm25fIndex({ fields });
    for (const id of ["c", "a", "b"]) index.add(id, [["same"], ["text"]]);
    assert.deepEqual(index.search(["same"], 5).map((h) => h.id), ["a", "b", "c"]);
  });

  it("add, remove and replace leave the same index as a fresh build", () => {
    const incremental = build();
    incremental.remove("news");
    incremental.add("extra", [["news"], ["other"]]);
    incremental.add("extra", docs.news); // replace
    const fresh = new Bm25fIndex({ fields });
    for (const id of ["weather", "forecast", "stock"]) fresh.add(id, docs[id]);
    fresh.add("extra", docs.news);
    for (const q of [["stock"], ["weather", "rain"], ["news", "company"], ["other"]]) {
      assert.deepEqual(incremental.search(q, 10), fresh.search(q, 10), q.join(" "));
    }
    assert.equal(incremental.remove("missing"), false);
    assert.equal(incremental.size, 4);
  });

  it("answers as a fresh build through any mix of bulk adds, single adds, removals, reused slots and reads", () => {
    // Adds wait in a pending list until the next read: a bulk is sorted into shared buffers, a few are appended, a
    // reused slot is inserted in place; every path must leave the lists a fresh build would have (ranks and scores).
    const words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "zeta", "theta", "iota"];
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
    const doc = (): string[][] => [0, 1].map((f) => Array.from({ length: 1 + random(f ? 8 : 3) }, () => words[random(words.length)]));
    const live = new Map<string, string[][]>();
    const incremental = new Bm25fIndex({ fields });
    const check = (label: string) => {
      const fresh = new Bm25fIndex({ fields });
      for (const [id, terms] of [...live].sort(([a], [b]) => a.localeCompare(b))) fresh.add(id, terms);
      for (const q of [["alpha"], ["beta", "zeta"], ["omega", "omega", "iota"], ["thet"]]) {
        assert.deepEqual(incremental.search(q, 20), fresh.search(q, 20), `${label}: ${q.join(" ")}`);
      }
      for (const word of words) assert.equal(incremental.documentFrequency(word), fresh.documentFrequency(word), `${label}: df ${word}`);
    };
    const add = (id: string) => {
      const terms = doc();
      live.set(id, terms);
      incremental.add(id, terms);
    };
    for (let i = 0; i < 200; i++) add(`d${i}`);
    check("bulk");
    for (let i = 200; i < 203; i++) add(`d${i}`);
    check("a few appended");
    for (let i = 0; i < 200; i += 7) {
      incremental.remove(`d${i}`);
      live.delete(`d${i}`);
    }
    check("removed");
    for (let i = 300; i < 320; i++) add(`d${i}`); // reuses the free slots first, then appends
    add("d5"); // replaces
    check("reused");
    for (const id of [...live.keys()]) {
      incremental.remove(id);
      live.delete(id);
    }
    assert.equal(incremental.hasTerm("alpha"), false);
    assert.equal(incremental.exportState().terms.length, 0);
    add("again");
    check("emptied and refilled");
  });

  it("matches a misspelt term to near vocabulary terms, below any exact match", () => {
    const index = build();
    assert.deepEqual(index.search(["wether"], 5).map((h) => h.id), ["weather", "forecast"]);
    const exact = index.search(["weather"], 1)[0].score;
    const fuzzy = index.search(["wether"], 1)[0].score;
    assert.ok(fuzzy < exact);
    assert.deepEqual(index.search(["wether"], 5, { fuzzy: false }), []);
    assert.equal(new Bm25fIndex({ fields, fuzzy: false }).search(["wether"], 5).length, 0);
  });

  it("an exact match on a rare term outranks a fuzzy match on an equally rare one", () => {
    const index = new Bm25fIndex({ fields });
    index.add("exact", [["alpha"], ["zebra"]]);
    index.add("fuzzy", [["alpha"], ["zebras"]]);
    index.add("filler", [["beta"], ["other"]]);
    // "zebra" is in the vocabulary: only exact matches count for it.
    assert.deepEqual(index.search(["zebra"], 5).map((h) => h.id), ["exact"]);
    // "zebrra" is not: both near terms match, each at a discount.
    const hits = index.search(["zebrra"], 5);
    assert.equal(hits[0].id, "exact");
    assert.ok(hits[0].score < index.search(["zebra"], 1)[0].score);
  });

  it("normalizes a field's length by the ids that fill it: items leaving it empty do not shrink its average", () => {
    // Two ids fill the sparse `body` field (lengths 1 and 4); the others have a title only. Over every id the body's
    // average would fall as title-only ids are added, ever more penalizing the ids that have one; over the ids that
    // fill it, the two bodies keep the same score ratio however many title-only ids there are.
    const ratio = (titleOnly: number) => {
      const index = new Bm25fIndex({ fields });
      index.add("short", [["a"], ["zeta"]]);
      index.add("long", [["b"], ["zeta", "x", "y", "z"]]);
      for (let i = 0; i < titleOnly; i++) index.add(`t${i}`, [[`w${i}`], []]);
      const scores = new Map(index.search(["zeta"], 5).map((h) => [h.id, h.score]));
      return scores.get("short")! / scores.get("long")!;
    };
    const base = ratio(0);
    assert.ok(base > 1);
    for (const n of [5, 50]) assert.ok(Math.abs(ratio(n) - base) < 1e-9, `${n} title-only ids changed the ratio: ${ratio(n)} vs ${base}`);
    // Removing title-only ids again, or all of a body's ids, keeps the counts right (a fresh build agrees).
    const index = new Bm25fIndex({ fields });
    index.add("short", [["a"], ["zeta"]]);
    index.add("long", [["b"], ["zeta", "x", "y", "z"]]);
    for (let i = 0; i < 5; i++) index.add(`t${i}`, [[`w${i}`], []]);
    for (let i = 0; i < 5; i++) index.remove(`t${i}`);
    const scores = new Map(index.search(["zeta"], 5).map((h) => [h.id, h.score]));
    assert.ok(Math.abs(scores.get("short")! / scores.get("long")! - base) < 1e-9);
  });

  it("rejects a document with the wrong number of fields", () => {
    assert.throws(() => build().add("bad", [["x"]]), /expected 2 fields/);
  });
});

describe("Bm25fIndex.rescore", () => {
  it("with whole-item normalization and weights 1, ranks and scores as one bag of the fields", () => {
    const docs: [string, string[][]][] = [
      ["a", [["weather", "now"], ["rain", "and", "sun", "forecast"]]],
      ["b", [["forecast"], ["weather", "for", "a", "week"]]],
      ["c", [["stock", "price"], ["share", "price", "now", "weather"]]],
    ];
    const fielded = new Bm25fIndex({ fields: [{ name: "name", weight: 3 }, { name: "body" }], fuzzy: false });
    const bag = new Bm25fIndex({ fields: [{ name: "all", b: 0.4 }], k1: 0.9, fuzzy: false });
    for (const [id, fields] of docs) {
      fielded.add(id, fields);
      bag.add(id, [fields.flat()]);
    }
    const before = fielded.search(["weather", "forecast"], 3);
    fielded.rescore({ k1: 0.9, normalization: { document: 0.4 }, fields: [{ weight: 1 }, { weight: 1 }] });
    for (const query of [["weather", "forecast"], ["price", "now"], ["rain"]]) {
      const a = fielded.search(query, 3);
      const b = bag.search(query, 3);
      assert.deepEqual(a.map((h) => h.id), b.map((h) => h.id));
      a.forEach((h, i) => assert.ok(Math.abs(h.score - b[i].score) < 1e-12));
    }
    assert.notDeepEqual(fielded.search(["weather", "forecast"], 3), before, "the rescored index ranks differently from the fielded one");
  });
});

describe("Bm25fIndex presence floor", () => {
  // A name field trusted twice, and a long, weak parameter field (weight 0.5, full length normalization).
  const weak = [{ name: "name", weight: 2, b: 0.75 }, { name: "params", weight: 0.5, b: 0.75 }];
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `filler${i}`);
  const catalog: [string, string[][]][] = [
    ["hub", [["autocomplete"], ["paris", "london", ...filler(30)]]],
    ["maps", [["maps"], ["london", "city"]]],
    ["weather", [["weather", "city"], ["city"]]],
    ["news", [["news", "city"], []]],
  ];
  const build = (presenceFloor: boolean, ids = catalog.map(([id]) => id)) => {
    const index = new Bm25fIndex({ fields: weak, fuzzy: false, presenceFloor });
    for (const [id, fields] of catalog) if (ids.includes(id)) index.add(id, fields);
    return index;
  };
  const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  const k1 = 1.2;
  const saturate = (x: number) => (x * (k1 + 1)) / (x + k1);

  it("counts a word only one id has at least as a plain match of its raw frequency, wherever it is written", () => {
    const [off] = build(false).search(["paris"], 5);
    const [on] = build(true).search(["paris"], 5);
    assert.equal(on.id, "hub");
    // One occurrence, no weight, no length normalization: idf · sat(1) = idf.
    assert.ok(Math.abs(on.score - idf(4, 1) * saturate(1)) < 1e-12, `${on.score}`);
    assert.ok(off.score < on.score / 2, "without the floor the long weak field hides most of it");
  });

  it("gives a word of df ids 1/df of that, and leaves matches above the floor as they were", () => {
    const off = new Map(build(false).search(["london"], 5).map((h) => [h.id, h.score]));
    const on = new Map(build(true).search(["london"], 5).map((h) => [h.id, h.score]));
    const floor = (idf(4, 2) * saturate(1)) / 2;
    assert.ok(off.get("hub")! < floor);
    assert.ok(Math.abs(on.get("hub")! - floor) < 1e-12, `${on.get("hub")}`);
    // `maps` has it in a short parameter field: weighted, it is above the floor and unchanged.
    assert.ok(off.get("maps")! > floor);
    assert.equal(on.get("maps"), off.get("maps"));
    // A word of three ids matched in names: every score as without the floor.
    assert.deepEqual(build(true).search(["city"], 5), build(false).search(["city"], 5));
  });

  it("splits a floored score among the fields by raw frequency, and the parts add up to the score", () => {
    const index = build(true);
    const [hit] = index.search(["paris", "news"], 5).filter((h) => h.id === "hub");
    const parts = index.explain(["paris", "news"], "hub");
    assert.deepEqual(parts.map((p) => [p.term, p.field]), [["paris", "params"]]);
    assert.ok(Math.abs(parts[0].contribution - hit.score) < 1e-12);
  });

  it("takes df within a subset, as an index built from the subset alone", () => {
    const whole = build(true);
    const subset = whole.subset((id) => id !== "maps");
    const alone = build(true, ["hub", "weather", "news"]);
    for (const query of [["london"], ["london", "city"], ["paris", "city"]]) {
      const a = whole.search(query, 5, { subset });
      const b = alone.search(query, 5);
      assert.deepEqual(a.map((h) => h.id), b.map((h) => h.id));
      a.forEach((h, i) => assert.ok(Math.abs(h.score - b[i].score) < 1e-12, `${query}: ${h.score} vs ${b[i].score}`));
    }
  });

  it("is kept by a rescore that asks for it and dropped by one that does not", () => {
    const index = build(false);
    index.rescore({ k1, fields: weak, presenceFloor: true });
    assert.deepEqual(index.search(["paris", "london"], 5), build(true).search(["paris", "london"], 5));
    index.rescore({ k1, fields: weak });
    assert.deepEqual(index.search(["paris", "london"], 5), build(false).search(["paris", "london"], 5));
  });
});
