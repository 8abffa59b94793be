/**
 * Scoring variants of BM25F tried against plain BM25 on labelled sets (issue 36: `bm25` below `bm25-plain` on one
 * catalog). Each variant scores every query exhaustively from the same postings (raw frequencies per field) and the
 * same typo expansions as `bm25`, so `presence floor` reproduces `toolsearch eval -e bm25` (and `fields` what it gave
 * before the floor), and `plain` reproduces `-e bm25-plain` (no typo expansion, as that engine). Prints nDCG@10 / recall@10 in % per set and variant, with ✗ where
 * a variant is more than 0.5 below plain BM25 in either, then each variant's worst margin over all sets.
 *
 *   node --import tsx scripts/bm25-variants.ts [--only=NAME,NAME] [--precise] [--fit] NAME=CATALOG:QUERIES[:EVERY] …
 *
 * (EVERY: keep every n-th query; `--only` runs the variants so named; `--precise` prints two decimals; `--fit` prints
 * instead each variant's mean paired gain over the shipped `presence floor` on the catalog fit's pseudo-queries, in
 * standard errors: the per-catalog fit would choose a variant offered as a candidate above 2.)
 *
 * Variants (see docs/relevance.md, "Scoring variants tried"):
 * - `fields`: BM25F before the presence floor (`DEFAULT_TOOL_BM25`; field frequencies weighted, length-normalized per
 *   field against the average over the tools that fill the field, summed, then saturated once: Robertson & Zaragoza);
 * - `presence floor`: what ships (`Bm25fOptions.presenceFloor`): `fields`, each match at least 1/df of what a plain
 *   match of its raw frequency (no field weight, no length normalization) would give;
 * - `all-tools average`: the same with each field's average over every tool (before issue 36);
 * - `best field tf`: the largest weighted field frequency instead of their sum (a term's evidence capped by its best
 *   field);
 * - `per-field BM25`: each field saturated on its own and the fields' scores summed (`+ field idf`: with each field's
 *   own idf, over the tools that fill it); `best per-field`: the largest of them;
 * - `b / cv`: each field's `b` divided by the coefficient of variation of its filled lengths when above 1 (a field whose
 *   lengths vary wildly normalized less), derived from the catalog without labels;
 * - `log length`, `sqrt length`: a concave length ratio (long fields penalized less); `length ratio ≤ 2`: a field at
 *   most twice its average long as far as normalization goes (beyond that, more length taken as scope, not verbosity);
 * - `distinct terms as length`: a field's length counted in distinct terms (Singhal's pivoted unique normalization),
 *   so repeating words makes a field long and listing many different ones (examples of a parameter) less so;
 * - `unique terms: presence`, `terms in ≤ N tools`: a term that few tools have counted by its raw frequency over the
 *   whole tool (no field weight, no length normalization); `at least presence`: the larger of that and `fields`
 *   (what the presence floor does for these terms, without its 1/df for the others);
 * - `PRMS`: Kim, Xue & Croft's probabilistic field weights per query term, from where the term occurs in the catalog
 *   (alone, scaled, times the default weights, or averaged with them);
 * - `BM25+ δ`: Lv & Zhai's lower bound: every matched term adds δ·idf whatever the field's length;
 * - `k1 0.9`, and `param descriptions 1` (their weight 1 instead of 0.5), with and without δ.
 * Third round (issue 36; docs/relevance.md, "Third round"), each the presence floor with one thing changed:
 * - `floor idf / max idf`, `floor (idf / max idf)²`, `floor 2/(df+1)`: the floor's strength other than `1/df`, from the
 *   catalog (the word's idf as a share of the largest idf; its square; `1/df` smoothed as a rule of succession);
 * - `presence floor + lengths in words`: field lengths without the joined forms of split identifiers (Lucene's
 *   `discountOverlaps`); `plain + lengths in words`: plain BM25 so; `presence floor + average by word`: each field's
 *   average length as a word sees it (Σ len² / Σ len);
 * - `floor 1/df + coord`: Lucene's coordination factor (score × share of the query's words matched);
 * - `floor 1/df + query words once`: a word the query repeats counted once (k3 = 0);
 * - `floor 1/df + weights over the word's fields`: the field weights divided by the largest weight among the fields
 *   the word occurs in anywhere in the catalog.
 * Fourth round (issue 36; docs/relevance.md, "Fourth round"), each the presence floor with one thing changed (`plain + …`:
 * plain BM25 with the same change):
 * - `floor + no digit joins`: the catalog and the queries analyzed without the joined form of an identifier made only
 *   of digits (`48.8567` → 48, 8567, and no `488567`): an index change;
 * - `floor + exact terms only`: no typo expansion of query words the catalog does not have;
 * - `floor + request words stopped` and its longer lists (`more request words`, `request words and 6`, `… and 4`,
 *   `request words and WORD`, `more request words but WORD`): words of request phrasing dropped from queries only;
 *   `--query-stop=FILE` adds the same with a published list read from FILE (`floor + query stop file`);
 * - `floor × idf / max idf`, `floor × √(idf / max idf)`: each query word's score times its idf's share of the largest
 *   (common words, request phrasing among them, count less, without a list);
 * - `floor × category idf / max`: the same with an idf over categories (each category one document);
 * - `floor + RM3`: pseudo-relevance feedback (RM3 with Anserini's defaults) before the final ranking.
 * - `mixed`, `mixed + presence floor`: the catalog fit's `mixed` candidate, without and with the floor.
 */
import { readFileSync } from "node:fs";
import { loadCatalogFile } from "../src/catalog/load.js";
import { Bm25fIndex } from "../src/engines/bm25f.js";
import { FieldPacking } from "../src/engines/bm25f-postings.js";
import { idfOf } from "../src/engines/bm25f-search.js";
import { ndcgAt, recallAt } from "../src/eval/metrics.js";
import { loadQueries } from "../src/eval/queries.js";
import { TOOL_FIELDS, toolTexts } from "../src/indexes/tool-fields.js";
import { DEFAULT_TOOL_BM25 } from "../src/indexes/tool-index-options.js";
import { pseudoQueries } from "../src/indexes/catalog-fit.js";
import { type Analyzer, createAnalyzer } from "../src/text/analyzer.js";
import type { Token } from "../src/text/token.js";
import { ChunkTerms } from "../src/text/chunk-terms.js";
import { ENGLISH_STOPWORDS } from "../src/text/filters/stopwords.js";
import { chunkTexts } from "../src/text/filters/tokenize.js";

const F = TOOL_FIELDS.length;
const WEIGHTS = TOOL_FIELDS.map((f) => DEFAULT_TOOL_BM25.fields[f].weight);
const BS = TOOL_FIELDS.map((f) => DEFAULT_TOOL_BM25.fields[f].b);
const PARAM_DESCRIPTIONS = TOOL_FIELDS.indexOf("paramDescriptions");
const FUZZY_PENALTY = 0.4;

/** What a variant may read of a catalog: field lengths by slot, and per field its averages and spread. */
interface Catalog {
  size: number;
  lengths: Int32Array;
  /** Per field: tools that fill it, average over those, over every tool, and coefficient of variation. */
  filled: number[];
  avg: number[];
  avgAll: number[];
  cv: number[];
  avgTotal: number;
  /** Per field, its total length over the catalog. */
  total: number[];
  /** Distinct terms per slot and field (`fields` per slot), and their average per field over the tools that fill it. */
  distinct: Int32Array;
  avgDistinct: number[];
  /**
   * Field lengths by slot without the joined forms of split identifiers (`getStockLevel` → get, stock, level and
   * `getstocklevel`: four terms, three words), with their averages over the tools that fill each field and the whole
   * tool's: Lucene's `discountOverlaps` (a token at the position of the one before adds no length).
   */
  words: Int32Array;
  avgWords: number[];
  avgTotalWords: number;
  /** Per field, the length of the field a random occurrence of a word is in: Σ len² / Σ len over the tools. */
  avgByWord: number[];
  /** Each slot's category as a number (-1 without one), and how many categories the catalog has. */
  categories: Int32Array;
  categoryCount: number;
}

/**
 * One term's evidence in one tool: its idf, its raw frequency per field, and over the catalog how many tools have it
 * in each field and how often it occurs in each field.
 */
type Score = (idf: number, slot: number, tf: number[], fieldDf: number[], fieldCf: number[], df: number, categoryDf?: number) => number;
interface Variant {
  name: string;
  fuzzy?: boolean;
  /** Lucene's coordination factor: each tool's score times the share of the query's distinct terms it matched. */
  coord?: boolean;
  /** Each distinct query word counted once, however often the query repeats it (BM25's k3 = 0). */
  queryOnce?: boolean;
  /** Pseudo-relevance feedback (RM3) before the final ranking: feedback tools, expansion terms, original query's weight. */
  rm3?: { docs: number; terms: number; original: number };
  /** The catalog and queries analyzed otherwise (an index change: `ANALYSES`). */
  analysis?: keyof typeof ANALYSES;
  /** Query terms dropped before scoring (a stop list for queries only). */
  queryStop?: ReadonlySet<string>;
  make(c: Catalog): Score;
}

const saturate = (x: number, k1: number) => (x * (k1 + 1)) / (x + k1);
const ratioNorm = (b: number, len: number, avg: number) => 1 - b + (b * len) / avg;

/** BM25F with one saturation over the weighted sum (or the largest) of the fields' normalized frequencies. */
function bm25f(name: string, o: { weights?: number[]; termWeights?: (c: Catalog, fieldCf: number[]) => number[]; b?: (c: Catalog) => number[]; k1?: number; delta?: number; average?: "all" | "by word"; norm?: (b: number, len: number, avg: number) => number; combine?: "max"; distinct?: boolean; words?: boolean } = {}): Variant {
  return {
    name,
    make: (c) => {
      const weights = o.weights ?? WEIGHTS, k1 = o.k1 ?? DEFAULT_TOOL_BM25.k1, delta = o.delta ?? 0;
      const bs = o.b?.(c) ?? BS;
      const avg = o.distinct ? c.avgDistinct : o.words ? c.avgWords : o.average === "all" ? c.avgAll : o.average === "by word" ? c.avgByWord : c.avg;
      const lengths = o.distinct ? c.distinct : o.words ? c.words : c.lengths;
      const norm = o.norm ?? ratioNorm;
      return (idf, slot, tf, _fieldDf, fieldCf) => {
        const w = o.termWeights?.(c, fieldCf) ?? weights;
        let x = 0;
        for (let f = 0; f < F; f++) {
          if (tf[f] === 0) continue;
          const v = (w[f] * tf[f]) / norm(bs[f], lengths[slot * F + f], avg[f]);
          x = o.combine === "max" ? Math.max(x, v) : x + v;
        }
        return x === 0 ? 0 : idf * (saturate(x, k1) + delta);
      };
    },
  };
}

/** Each field saturated on its own, weighted, then summed (or the best field kept). */
function perField(name: string, combine: "sum" | "max", fieldIdf: boolean): Variant {
  return {
    name,
    make: (c) => (idf, slot, tf, fieldDf) => {
      let score = 0;
      for (let f = 0; f < F; f++) {
        if (tf[f] === 0) continue;
        const x = tf[f] / ratioNorm(BS[f], c.lengths[slot * F + f], c.avg[f]);
        const v = WEIGHTS[f] * (fieldIdf ? idfOf(c.filled[f], fieldDf[f]) : idf) * saturate(x, DEFAULT_TOOL_BM25.k1);
        score = combine === "sum" ? score + v : Math.max(score, v);
      }
      return score;
    },
  };
}

/**
 * `fields`, except that a term found in at most `maxDf` tools counts by its raw frequency over the whole tool, with no
 * field weight and no length normalization: a term that only one tool has identifies it wherever it is written.
 */
function uniqueTerms(name: string, maxDf: number, atLeast = false, perTool = false): Variant {
  const fields = bm25f("fields");
  return {
    name,
    make: (c) => {
      const score = fields.make(c);
      const rare = idfOf(c.size, maxDf + 1);
      return (idf, slot, tf, fieldDf, fieldCf, df) => {
        const weighted = score(idf, slot, tf, fieldDf, fieldCf, df);
        if (idf <= rare) return weighted;
        const presence = (idf * saturate(tf.reduce((a, b) => a + b, 0), DEFAULT_TOOL_BM25.k1)) / (perTool ? df : 1);
        return atLeast ? Math.max(weighted, presence) : presence;
      };
    },
  };
}

/**
 * `fields` (or its other options `o`), each match at least `share(c, df)` of what its raw frequency would give plainly
 * (the presence floor with another strength than `1/df`, or over other weights or lengths).
 */
function floorBy(name: string, share: (c: Catalog, df: number) => number, o: Parameters<typeof bm25f>[1] = {}): Variant {
  const fields = bm25f("fields", o);
  return {
    name,
    make: (c) => {
      const score = fields.make(c);
      return (idf, slot, tf, fieldDf, fieldCf, df) =>
        Math.max(score(idf, slot, tf, fieldDf, fieldCf, df), idf * share(c, df) * saturate(tf.reduce((a, b) => a + b, 0), DEFAULT_TOOL_BM25.k1));
    },
  };
}
/** A word's idf as a share of the largest idf a word can have in the catalog (one tool has it). */
const idfShare = (c: Catalog, df: number) => idfOf(c.size, df) / idfOf(c.size, 1);

/**
 * The catalog fit's `mixed` candidate: the default field weights, k1 0.9, the length normalized over the whole tool
 * (b 0.4) as plain BM25 does; with `floor`, each match at least 1/df of a plain match of its raw frequency.
 */
function mixed(name: string, floor: boolean): Variant {
  return {
    name,
    make: (c) => (idf, slot, tf, _fieldDf, _fieldCf, df) => {
      let len = 0, x = 0, raw = 0;
      for (let f = 0; f < F; f++) (len += c.lengths[slot * F + f]), (x += WEIGHTS[f] * tf[f]), (raw += tf[f]);
      const weighted = idf * saturate(x / ratioNorm(0.4, len, c.avgTotal), 0.9);
      return floor ? Math.max(weighted, (idf * saturate(raw, 0.9)) / df) : weighted;
    },
  };
}

/** `PLAIN_TOOL_BM25`: one bag of every field, k1 0.9, b 0.4, no typo expansion (lengths in words: `Catalog.words`). */
function plain(name: string, words = false): Variant {
  return {
    name,
    fuzzy: false,
    make: (c) => {
      const lengths = words ? c.words : c.lengths, avgTotal = words ? c.avgTotalWords : c.avgTotal;
      return (idf, slot, tf) => {
        let len = 0, x = 0;
        for (let f = 0; f < F; f++) (len += lengths[slot * F + f]), (x += tf[f]);
        return idf * saturate(x / ratioNorm(0.4, len, avgTotal), 0.9);
      };
    },
  };
}
const PLAIN = plain("plain");

/**
 * PRMS (Kim, Xue & Croft 2009): a query term's weight per field is the probability that the term comes from that field,
 * P(f | t) ∝ P(t | C_f), the term's share of the field's text over the catalog (uniform prior over fields).
 */
const prms = (c: Catalog, fieldCf: number[]) => {
  const p = fieldCf.map((cf, f) => (c.total[f] ? cf / c.total[f] : 0));
  const sum = p.reduce((a, b) => a + b, 0) || 1;
  return p.map((x) => x / sum);
};
/** PRMS times the default weights, rescaled to sum to 2 per term. */
const prmsTimesDefaults = (c: Catalog, fieldCf: number[]) => {
  const p = prms(c, fieldCf).map((x, f) => x * WEIGHTS[f]);
  const sum = p.reduce((a, b) => a + b, 0) || 1;
  return p.map((x) => (2 * x) / sum);
};
/**
 * Words of request phrasing ("I need…", "please help me know…") as the analyzer stems them, not in the English stop
 * list: dropped from queries only (tools keep them), a small list and a longer one with words that also name things
 * tools do (`provide`, `find`, `use`, `information`).
 */
const REQUEST_WORDS: ReadonlySet<string> = new Set(["need", "want", "pleas", "help", "know", "tell", "look", "give", "let"]);
const MORE_REQUEST_WORDS_ONLY = ["provid", "find", "use", "like", "interest", "specif", "inform", "detail"];
const MORE_REQUEST_WORDS: ReadonlySet<string> = new Set([...REQUEST_WORDS, ...MORE_REQUEST_WORDS_ONLY]);
/**
 * The longer list without `find` and `detail` (which name what tools do: `find_*`, `get_details`); then also without `use`,
 * then without `use` and `inform` (lists picked after measuring each word on every set: see docs/relevance.md).
 */
const REQUEST_WORDS_AND_6: ReadonlySet<string> = new Set([...REQUEST_WORDS, "provid", "like", "interest", "specif", "use", "inform"]);
const REQUEST_WORDS_AND_5: ReadonlySet<string> = new Set([...REQUEST_WORDS, "provid", "like", "interest", "specif", "inform"]);
const REQUEST_WORDS_AND_4: ReadonlySet<string> = new Set([...REQUEST_WORDS, "provid", "like", "interest", "specif"]);
/**
 * `--query-stop=FILE`: a stop list for queries only, a JSON array of words or an object of such arrays keyed by language
 * (its `en`), as the analyzer stems them (a published list such as stopwords-iso's English one).
 */
const QUERY_STOP_FILE = process.argv.find((a) => a.startsWith("--query-stop="))?.slice(13);
function queryStopFile(file: string): ReadonlySet<string> {
  const json = JSON.parse(readFileSync(file, "utf8")) as string[] | Record<string, string[]>;
  const words = Array.isArray(json) ? json : json.en;
  const stem = createAnalyzer({ stopwords: false });
  return new Set(words.flatMap((w) => stem.analyze(w)));
}
/** Anserini's RM3 defaults: 10 feedback documents, 10 expansion terms, the original query weighted 0.5. */
const ANSERINI_RM3 = { docs: 10, terms: 10, original: 0.5 };

/**
 * The presence floor with each query word's score times its idf over categories (each category a document) as a share
 * of the largest: a word that every category's tools use (`provide`, `information`) is boilerplate, one that a few
 * categories hold is topical. Unchanged in a catalog with fewer than two categories.
 */
function categoryWeighted(name: string): Variant {
  const floor = floorBy(name, (_c, df) => 1 / df);
  return {
    name,
    make: (c) => {
      const score = floor.make(c);
      if (c.categoryCount < 2) return score;
      const top = idfOf(c.categoryCount, 1);
      return (idf, slot, tf, fieldDf, fieldCf, df, categoryDf) => score(idf, slot, tf, fieldDf, fieldCf, df, categoryDf) * idfOf(c.categoryCount, Math.max(1, categoryDf ?? 1)) / top;
    },
  };
}

/**
 * The presence floor with each query word's score times its idf's share of the largest idf in the catalog, raised to
 * `power`: request phrasing (common words) counts less than it does in BM25 without a list of such words.
 */
function idfWeighted(name: string, power: number): Variant {
  const floor = floorBy(name, (_c, df) => 1 / df);
  return {
    name,
    make: (c) => {
      const score = floor.make(c);
      return (idf, slot, tf, fieldDf, fieldCf, df) => score(idf, slot, tf, fieldDf, fieldCf, df) * idfShare(c, df) ** power;
    },
  };
}
const paramDescriptions = (w: number) => WEIGHTS.map((x, f) => (f === PARAM_DESCRIPTIONS ? w : x));
const VARIANTS: Variant[] = [
  bm25f("fields"),
  bm25f("all-tools average", { average: "all" }),
  bm25f("best field tf", { combine: "max" }),
  perField("per-field BM25", "sum", false),
  perField("+ field idf", "sum", true),
  perField("best per-field", "max", false),
  bm25f("b / cv", { b: (c) => BS.map((b, f) => b / Math.max(1, c.cv[f])) }),
  bm25f("log length", { norm: (b, len, avg) => 1 - b + (b * Math.log(1 + len)) / Math.log(1 + avg) }),
  bm25f("sqrt length", { norm: (b, len, avg) => 1 - b + (b * Math.sqrt(len)) / Math.sqrt(avg) }),
  bm25f("distinct terms as length", { distinct: true }),
  uniqueTerms("unique terms: presence", 1),
  uniqueTerms("terms in ≤ 2 tools: presence", 2),
  uniqueTerms("terms in ≤ 3 tools: presence", 3),
  uniqueTerms("unique terms: at least presence", 1, true),
  uniqueTerms("terms in ≤ 2 tools: at least presence", 2, true),
  uniqueTerms("presence floor", Infinity, true, true),
  floorBy("floor idf / max idf", idfShare),
  floorBy("floor (idf / max idf)²", (c, df) => idfShare(c, df) ** 2),
  floorBy("presence floor + lengths in words", (_c, df) => 1 / df, { words: true }),
  plain("plain + lengths in words", true),
  floorBy("presence floor + average by word", (_c, df) => 1 / df, { average: "by word" }),
  floorBy("floor 2/(df+1)", (_c, df) => 2 / (df + 1)),
  { ...floorBy("floor 1/df + coord", (_c, df) => 1 / df), coord: true },
  { ...floorBy("floor 1/df + query words once", (_c, df) => 1 / df), queryOnce: true },
  floorBy("floor 1/df + weights over the word's fields", (_c, df) => 1 / df, {
    // The field weights relative to the best field the word occurs in anywhere in the catalog: a word that only
    // parameter descriptions ever hold is not outranked there by names that never have it.
    termWeights: (_c, fieldCf) => {
      const top = Math.max(...WEIGHTS.filter((_, f) => fieldCf[f] > 0));
      return WEIGHTS.map((w) => w / top);
    },
  }),
  // Fourth round (issue 36; docs/relevance.md, "Fourth round"), each the presence floor with one thing changed.
  { ...floorBy("floor + no digit joins", (_c, df) => 1 / df), analysis: "no digit joins" },
  { ...plain("plain + no digit joins"), analysis: "no digit joins" },
  { ...floorBy("floor + exact terms only", (_c, df) => 1 / df), fuzzy: false },
  { ...floorBy("floor + request words stopped", (_c, df) => 1 / df), queryStop: REQUEST_WORDS },
  { ...plain("plain + request words stopped"), queryStop: REQUEST_WORDS },
  { ...floorBy("floor + more request words stopped", (_c, df) => 1 / df), queryStop: MORE_REQUEST_WORDS },
  { ...plain("plain + more request words stopped"), queryStop: MORE_REQUEST_WORDS },
  { ...floorBy("floor + request words and 6 stopped", (_c, df) => 1 / df), queryStop: REQUEST_WORDS_AND_6 },
  { ...plain("plain + request words and 6 stopped"), queryStop: REQUEST_WORDS_AND_6 },
  { ...floorBy("floor + request words and 5 stopped", (_c, df) => 1 / df), queryStop: REQUEST_WORDS_AND_5 },
  { ...floorBy("floor + request words and 4 stopped", (_c, df) => 1 / df), queryStop: REQUEST_WORDS_AND_4 },
  ...MORE_REQUEST_WORDS_ONLY.flatMap((w) => [
    { ...floorBy(`floor + request words and ${w} stopped`, (_c, df) => 1 / df), queryStop: new Set([...REQUEST_WORDS, w]) },
    { ...floorBy(`floor + more request words but ${w} stopped`, (_c, df) => 1 / df), queryStop: new Set([...MORE_REQUEST_WORDS].filter((x) => x !== w)) },
  ]),
  idfWeighted("floor × idf / max idf", 1),
  idfWeighted("floor × √(idf / max idf)", 0.5),
  categoryWeighted("floor × category idf / max"),
  mixed("mixed", false),
  mixed("mixed + presence floor", true),
  ...(QUERY_STOP_FILE ? [
    { ...floorBy("floor + query stop file", (_c: Catalog, df: number) => 1 / df), queryStop: queryStopFile(QUERY_STOP_FILE) },
    { ...plain("plain + query stop file"), queryStop: queryStopFile(QUERY_STOP_FILE) },
  ] : []),
  { ...floorBy("floor + RM3", (_c, df) => 1 / df), rm3: ANSERINI_RM3 },
  { ...plain("plain + RM3"), rm3: ANSERINI_RM3 },
  bm25f("length ratio ≤ 2", { norm: (b, len, avg) => 1 - b + b * Math.min(2, len / avg) }),
  bm25f("BM25+ δ 0.1", { delta: 0.1 }),
  bm25f("BM25+ δ 0.25", { delta: 0.25 }),
  bm25f("BM25+ δ 1", { delta: 1 }),
  bm25f("PRMS ×1", { termWeights: prms }),
  bm25f("PRMS ×3", { termWeights: (c, cf) => prms(c, cf).map((p) => 3 * p) }),
  bm25f("PRMS × defaults", { termWeights: prmsTimesDefaults }),
  bm25f("(defaults + 3 PRMS) / 2", { termWeights: (c, cf) => prms(c, cf).map((p, f) => (WEIGHTS[f] + 3 * p) / 2) }),
  bm25f("k1 0.9", { k1: 0.9 }),
  bm25f("param descriptions 1", { weights: paramDescriptions(1) }),
  bm25f("δ 0.5 + param descriptions 1", { delta: 0.5, weights: paramDescriptions(1) }),
];

interface Prepared {
  index: Bm25fIndex;
  catalog: Catalog;
  queries: { terms: string[]; relevant: Set<string> }[];
  /** The catalog fit's pseudo-queries (`pseudoQueries`), for `--fit`. */
  pseudo: { terms: string[]; relevant: Set<string> }[];
}

/** A token filter dropping the joined form of an identifier made only of digits (`48.8567` → 48, 8567, not `488567`). */
const dropDigitJoins = (tokens: Token[]): Token[] => tokens.filter((t) => !(t.keyword && /^[0-9]+$/.test(t.text)));
/** The analyses a variant may index and query with (`Variant.analysis`); `default` is the shipped analyzer. */
const ANALYSES = {
  default: createAnalyzer(),
  "no digit joins": createAnalyzer({ filters: [dropDigitJoins] }),
};

function prepare(catalogFile: string, queriesFile: string, every: number, analyzer: Analyzer = ANALYSES.default): Prepared {
  const tools = loadCatalogFile(catalogFile);
  const index = new Bm25fIndex({ k1: DEFAULT_TOOL_BM25.k1, fields: TOOL_FIELDS.map((name) => ({ name, ...DEFAULT_TOOL_BM25.fields[name] })) });
  const joined = new Map<string, number[]>();
  for (const tool of tools) {
    const texts = toolTexts(tool);
    index.add(tool.name, TOOL_FIELDS.map((f) => analyzer.analyze(texts[f])));
    joined.set(tool.name, TOOL_FIELDS.map((f) => joinedForms(texts[f])));
  }
  index.flush();
  const names = new Set(tools.map((t) => t.name));
  const queries = loadQueries(queriesFile, (id) => names.has(id))
    .filter((_, i) => i % every === 0)
    .map((q) => ({ terms: analyzer.analyze(q.query), relevant: new Set(q.relevant) }));
  const pseudo = pseudoQueries(tools.map((t) => ({ name: t.name, texts: toolTexts(t) })), analyzer)
    .map((q) => ({ terms: analyzer.analyze(q.query), relevant: new Set(q.relevant) }));
  const catalog = catalogStats(index, joined);
  const categoryIds = new Map<string, number>();
  catalog.categories = new Int32Array(index.items.ids.length).fill(-1);
  const bySlot = new Map(tools.map((t) => [t.name, t.category]));
  index.items.ids.forEach((id, slot) => {
    const category = id === undefined ? undefined : bySlot.get(id);
    if (!category) return;
    if (!categoryIds.has(category)) categoryIds.set(category, categoryIds.size);
    catalog.categories[slot] = categoryIds.get(category)!;
  });
  catalog.categoryCount = categoryIds.size;
  return { index, catalog, queries, pseudo };
}

const chunkTerms = new ChunkTerms(ENGLISH_STOPWORDS, true);
/** How many of a text's terms are the joined forms of split identifiers (`Token.keyword`). */
function joinedForms(text: string): number {
  let n = 0;
  for (const chunk of chunkTexts(text)) for (const token of chunkTerms.tokens(chunk)) if (token.keyword) n++;
  return n;
}

function catalogStats(index: Bm25fIndex, joined: Map<string, number[]>): Catalog {
  const { ids, lengths } = index.items;
  const { store } = index;
  const packing = new FieldPacking(F);
  const distinct = new Int32Array(lengths.length);
  for (let t = 0; t < store.terms; t++) {
    for (let i = store.start[t]; i < store.start[t] + store.count[t]; i++) for (let f = 0; f < F; f++) if (packing.get(store.tfs[i], f) > 0) distinct[store.slots[i] * F + f]++;
  }
  const filledLengths: number[][] = TOOL_FIELDS.map(() => []);
  ids.forEach((id, slot) => {
    if (id === undefined) return;
    for (let f = 0; f < F; f++) if (lengths[slot * F + f] > 0) filledLengths[f].push(lengths[slot * F + f]);
  });
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const avg = filledLengths.map((xs) => sum(xs) / Math.max(1, xs.length) || 1);
  const cv = filledLengths.map((xs, f) => (xs.length ? Math.sqrt(sum(xs.map((x) => (x - avg[f]) ** 2)) / xs.length) / avg[f] : 0));
  const size = index.size;
  const words = new Int32Array(lengths.length);
  const filledWords = TOOL_FIELDS.map(() => ({ total: 0, n: 0 }));
  ids.forEach((id, slot) => {
    if (id === undefined) return;
    const j = joined.get(id)!;
    for (let f = 0; f < F; f++) {
      words[slot * F + f] = lengths[slot * F + f] - j[f];
      if (lengths[slot * F + f] > 0) (filledWords[f].total += words[slot * F + f]), filledWords[f].n++;
    }
  });
  return {
    categories: new Int32Array(0),
    categoryCount: 0,
    avgByWord: filledLengths.map((xs) => sum(xs.map((x) => x * x)) / Math.max(1, sum(xs)) || 1),
    words,
    avgWords: filledWords.map((w) => w.total / Math.max(1, w.n) || 1),
    avgTotalWords: filledWords.reduce((a, w) => a + w.total, 0) / size || 1,
    size,
    lengths,
    filled: filledLengths.map((xs) => xs.length),
    avg,
    avgAll: filledLengths.map((xs) => sum(xs) / size || 1),
    cv,
    avgTotal: sum(filledLengths.map(sum)) / size || 1,
    total: filledLengths.map(sum),
    distinct,
    avgDistinct: TOOL_FIELDS.map((_, f) => {
      let total = 0;
      for (let slot = 0; slot < ids.length; slot++) if (ids[slot] !== undefined) total += distinct[slot * F + f];
      return total / Math.max(1, filledLengths[f].length) || 1;
    }),
  };
}

/** A query's terms as term ids with their query weight: exact terms, else near terms at a discount per edit. */
function queryTerms(index: Bm25fIndex, terms: string[], fuzzy: boolean): [number, number][] {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  const out: [number, number][] = [];
  for (const [term, count] of counts) {
    if (index.hasTerm(term)) out.push([index.termId(term), count]);
    else if (fuzzy) for (const near of index.nearTerms(term)) out.push([index.termId(near.term), count * FUZZY_PENALTY ** near.distance]);
  }
  return out;
}

function evaluate({ index, catalog, queries }: Pick<Prepared, "index" | "catalog" | "queries">, variant: Variant, fuzzy = variant.fuzzy !== false): { ndcg: number; recall: number; perQuery: number[] } {
  const score = variant.make(catalog);
  const { store, items } = index;
  const packing = new FieldPacking(F);
  const tf = new Array<number>(F).fill(0);
  const fieldDf = new Array<number>(F).fill(0);
  const fieldCf = new Array<number>(F).fill(0);
  const scores = new Map<number, number>();
  const matched = new Map<number, number>();
  let ndcg = 0, recall = 0;
  const perQuery: number[] = [];
  const seen = new Set<number>();
  const scoreTerms = (list: [number, number][]): void => {
    for (const [t, weight] of list) {
      const from = store.start[t], to = from + store.count[t];
      const idf = idfOf(catalog.size, store.count[t]);
      fieldDf.fill(0);
      fieldCf.fill(0);
      seen.clear();
      for (let i = from; i < to; i++) {
        const category = catalog.categories[store.slots[i]];
        if (category >= 0) seen.add(category);
        for (let f = 0; f < F; f++) {
          const n = packing.get(store.tfs[i], f);
          if (n > 0) (fieldDf[f]++, (fieldCf[f] += n));
        }
      }
      for (let i = from; i < to; i++) {
        for (let f = 0; f < F; f++) tf[f] = packing.get(store.tfs[i], f);
        const s = weight * score(idf, store.slots[i], tf, fieldDf, fieldCf, store.count[t], seen.size);
        if (s > 0) scores.set(store.slots[i], (scores.get(store.slots[i]) ?? 0) + s);
        if (s > 0 && variant.coord) matched.set(store.slots[i], (matched.get(store.slots[i]) ?? 0) + 1);
      }
    }
  };
  for (const q of queries) {
    scores.clear();
    matched.clear();
    const terms = variant.queryStop ? q.terms.filter((t) => !variant.queryStop!.has(t)) : q.terms;
    const list = queryTerms(index, variant.queryOnce ? [...new Set(terms)] : terms, fuzzy);
    scoreTerms(list);
    if (variant.rm3) {
      const expanded = rm3(index, list, scores, variant.rm3);
      scores.clear();
      scoreTerms(expanded);
    }
    if (variant.coord) {
      const distinct = new Set(q.terms).size;
      for (const [slot, s] of scores) scores.set(slot, (s * Math.min(distinct, matched.get(slot)!)) / distinct);
    }
    // Best first, equal scores by id, as `Bm25fIndex.search` ranks.
    const ranked = [...scores].sort((a, b) => b[1] - a[1] || (items.ids[a[0]]! < items.ids[b[0]]! ? -1 : 1)).slice(0, 10).map(([slot]) => items.ids[slot]!);
    perQuery.push(ndcgAt(10, ranked, q.relevant));
    ndcg += perQuery[perQuery.length - 1];
    recall += recallAt(10, ranked, q.relevant);
  }
  return { ndcg: (100 * ndcg) / queries.length, recall: (100 * recall) / queries.length, perQuery };
}

/** Each slot's terms with their raw frequency over every field, and its length (for `rm3`), per index. */
const forwardIndexes = new WeakMap<Bm25fIndex, { terms: Map<number, number>[]; length: number[] }>();
function forwardIndex(index: Bm25fIndex): { terms: Map<number, number>[]; length: number[] } {
  let forward = forwardIndexes.get(index);
  if (forward) return forward;
  const { store } = index;
  const packing = new FieldPacking(F);
  forward = { terms: [], length: [] };
  for (let t = 0; t < store.terms; t++) {
    for (let i = store.start[t]; i < store.start[t] + store.count[t]; i++) {
      let n = 0;
      for (let f = 0; f < F; f++) n += packing.get(store.tfs[i], f);
      const slot = store.slots[i];
      (forward.terms[slot] ??= new Map()).set(t, n);
      forward.length[slot] = (forward.length[slot] ?? 0) + n;
    }
  }
  forwardIndexes.set(index, forward);
  return forward;
}

/**
 * RM3 (Lavrenko & Croft's relevance model interpolated with the query; Anserini's defaults: 10 feedback documents, 10
 * terms, the original query at 0.5): P(w | R) = Σ over the top tools of P(w | tool) · their normalized first-pass
 * score, the top terms (letters only, as Anserini filters) mixed with the query's own term distribution.
 */
function rm3(index: Bm25fIndex, list: [number, number][], scores: Map<number, number>, o: { docs: number; terms: number; original: number }): [number, number][] {
  const forward = forwardIndex(index);
  const top = [...scores].sort((a, b) => b[1] - a[1]).slice(0, o.docs);
  const mass = top.reduce((a, [, s]) => a + s, 0) || 1;
  const relevance = new Map<number, number>();
  for (const [slot, s] of top) {
    for (const [t, n] of forward.terms[slot] ?? []) relevance.set(t, (relevance.get(t) ?? 0) + (n / forward.length[slot]) * (s / mass));
  }
  const dictionary = (index as unknown as { dictionary: { term(id: number): string } }).dictionary;
  const expansion = [...relevance].filter(([t]) => /^[a-z]+$/.test(dictionary.term(t))).sort((a, b) => b[1] - a[1]).slice(0, o.terms);
  const expansionMass = expansion.reduce((a, [, p]) => a + p, 0) || 1;
  const queryMass = list.reduce((a, [, w]) => a + w, 0) || 1;
  const weights = new Map<number, number>();
  for (const [t, w] of list) weights.set(t, (weights.get(t) ?? 0) + (o.original * w) / queryMass);
  for (const [t, p] of expansion) weights.set(t, (weights.get(t) ?? 0) + ((1 - o.original) * p) / expansionMass);
  return [...weights];
}

/**
 * `--fit`: a variant's mean paired gain in nDCG@10 over the shipped `presence floor` on the catalog fit's pseudo-queries,
 * in standard errors (the fit would switch to it above 2; ranked without typo expansion, as the fit ranks).
 */
function fitGain(set: Prepared, variant: Variant, base: number[]): string {
  const gains = evaluate({ ...set, queries: set.pseudo }, variant, false).perQuery.map((x, i) => x - base[i]);
  const gain = gains.reduce((a, b) => a + b, 0) / gains.length;
  const error = Math.sqrt(gains.reduce((a, g) => a + (g - gain) ** 2, 0) / gains.length / Math.max(1, gains.length - 1));
  return error ? `${(gain / error).toFixed(2)} SE` : "0 SE";
}

const FLOOR = VARIANTS.find((v) => v.name === "presence floor")!;
const fit = process.argv.includes("--fit");
const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7).split(",");
const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
if (only) VARIANTS.splice(0, VARIANTS.length, ...VARIANTS.filter((v) => only.includes(v.name)));
if (args.length === 0) throw new Error("usage: bm25-variants.ts NAME=CATALOG:QUERIES[:EVERY] …");
const worst = VARIANTS.map(() => ({ margin: Infinity, set: "" }));
const digits = process.argv.includes("--precise") ? 2 : 1;
const pct = (m: { ndcg: number; recall: number }) => `${m.ndcg.toFixed(digits)} / ${m.recall.toFixed(digits)}`;
if (fit) VARIANTS.unshift(PLAIN);
console.log(`| set | plain${fit ? " (real)" : ""} | ${VARIANTS.map((v) => v.name).join(" | ")} |`);
console.log(`|---|---|${VARIANTS.map(() => "---|").join("")}`);
for (const arg of args) {
  const [name, paths] = arg.split("=");
  const [catalogFile, queriesFile, every] = paths.split(":");
  const set = prepare(catalogFile, queriesFile, Number(every ?? 1));
  const others = new Map<string, Prepared>();
  const analyzed = (v: Variant): Prepared => {
    if (!v.analysis || v.analysis === "default") return set;
    if (!others.has(v.analysis)) others.set(v.analysis, prepare(catalogFile, queriesFile, Number(every ?? 1), ANALYSES[v.analysis]));
    return others.get(v.analysis)!;
  };
  const plain = evaluate(set, PLAIN);
  const base = fit ? evaluate({ ...set, queries: set.pseudo }, FLOOR, false).perQuery : [];
  const cells = VARIANTS.map((v, i) => {
    if (fit) return fitGain(analyzed(v), v, base);
    const m = evaluate(analyzed(v), v);
    const margin = Math.min(m.ndcg - plain.ndcg, m.recall - plain.recall);
    if (margin < worst[i].margin) worst[i] = { margin, set: name };
    return `${pct(m)}${margin < -0.5 ? " ✗" : ""}`;
  });
  console.log(`| ${name} | ${pct(plain)} | ${cells.join(" | ")} |`);
}
if (!fit) console.log(`| worst margin over plain (points) | | ${worst.map((w) => `${w.margin.toFixed(1)} (${w.set})`).join(" | ")} |`);
