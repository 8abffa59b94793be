/**
 * Pinned-rule matching at its worst: 1,000 rules (the most a collection may hold) of shapes chosen so that no rule is
 * rejected by its first or last piece and each scans the whole query, against queries of 64 to 4,096 characters (the
 * longest a search may send). Two columns, measured in the same run:
 *
 * - `every query`: each rule's glob tried on the whole query, as before the cap (text/glob.ts directly);
 * - `PinnedRules`: what a search does now (queries longer than `CURATION_LIMITS.ruleQueryChars` are not matched).
 *
 * Times are CPU milliseconds of this process (steadier than wall time on a shared machine).
 *
 *   node --import tsx bench/rules.ts            # table: median and worst ms per search, comparisons per search
 *   node --import tsx bench/rules.ts --json
 *
 * Options: --rounds N (searches timed per cell, default 30).
 */
import { parseArgs } from "node:util";
import { table } from "../src/cli/output.js";
import { codePoints, compileGlob } from "../src/text/glob.js";
import { CURATION_LIMITS } from "../src/usage/curation.js";
import { PinnedRules } from "../src/usage/rules.js";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "30" }, json: { type: "boolean", default: false } } });
const rounds = Number(values.rounds);
const RULES = CURATION_LIMITS.rules;

/** Each shape: the i-th rule's pattern and the query letter that makes every rule scan the whole query. */
const shapes: { name: string; pattern: (i: number) => string; letter: string }[] = [
  // A middle piece that never occurs: found nowhere after reading every letter.
  { name: "*b<i>* on a…a", pattern: (i) => `*b${i}*`, letter: "a" },
  // KMP's worst: a long run of the query's letter, then one that breaks it, so the failure table is walked.
  { name: "*a…ab<i>* on a…a", pattern: (i) => `*${"a".repeat(90)}b${i}*`, letter: "a" },
  // The shape, opened at the end so the last piece cannot reject it: many pieces, the last one missing.
  { name: "*a*a*…*b<i>* on a…a", pattern: (i) => `${"*a".repeat(40)}*b${i}*`, letter: "a" },
];
const lengths = [64, 256, 512, 1024, 4096];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(work: () => void): { median: number; worst: number } {
  work(); // warm up
  const runs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.cpuUsage();
    work();
    const used = process.cpuUsage(start);
    runs.push((used.user + used.system) / 1000);
  }
  return { median: median(runs), worst: Math.max(...runs) };
}

const rows: Record<string, unknown>[] = [];
for (const shape of shapes) {
  const patterns = Array.from({ length: RULES }, (_, i) => shape.pattern(i));
  const globs = patterns.map((p) => compileGlob(p, { questionMark: "literal" }));
  const counter = { steps: 0 };
  const counted = patterns.map((p) => compileGlob(p, { questionMark: "literal", counter }));
  const pins = new PinnedRules({ rules: patterns.map((query) => ({ query, pin: ["x"] })) });
  const pinCounter = { steps: 0 };
  const countedPins = new PinnedRules({ rules: patterns.map((query) => ({ query, pin: ["x"] })) }, pinCounter);
  for (const length of lengths) {
    const query = shape.letter.repeat(length);
    const every = time(() => {
      const points = codePoints(query);
      globs.some((g) => g(points));
    });
    counter.steps = 0;
    counted.some((g) => g(codePoints(query)));
    const steps = counter.steps;
    pinCounter.steps = 0;
    countedPins.match(query);
    const now = time(() => pins.match(query));
    rows.push({
      shape: shape.name,
      chars: length,
      "every query ms (median/worst)": `${every.median.toFixed(2)} / ${every.worst.toFixed(2)}`,
      comparisons: steps,
      "PinnedRules ms (median/worst)": `${now.median.toFixed(2)} / ${now.worst.toFixed(2)}`,
      "comparisons ": pinCounter.steps,
      "now / before": (now.median / every.median).toFixed(3),
    });
  }
}

if (values.json) console.log(JSON.stringify({ rules: RULES, cap: CURATION_LIMITS.ruleQueryChars, rounds, rows }, null, 2));
else {
  console.log(`${RULES} rules; rules look at queries of at most ${CURATION_LIMITS.ruleQueryChars} characters; ${rounds} searches per cell`);
  const header = Object.keys(rows[0]);
  for (const line of table(header, rows.map((r) => header.map((h) => String(r[h]))))) console.log(line);
}
