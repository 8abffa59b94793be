/**
 * Precision and recall of the poisoning lint rules per kind of attack, on the labelled corpus of
 * test/fixtures/poison-corpus (dev half, which the rules were tuned on, and held-out half, which they were not).
 *
 *   node --import tsx scripts/poison-corpus-report.ts [--json] [--misses]
 *
 * A poisoned entry of kind K counts as caught when a rule of K's family fires on it (KIND_RULES), and as flagged at
 * all when any poisoning rule does. Precision of K: of the entries K's rules flag, the share that are poisoned (of
 * any kind); an honest entry flagged is a false positive.
 */
import { lintTools } from "../src/lint/runner.js";
import type { CorpusEntry, CorpusLabel } from "../test/fixtures/poison-corpus/build.js";
import { DEV_CORPUS } from "../test/fixtures/poison-corpus/dev.js";
import { HELD_OUT_CORPUS } from "../test/fixtures/poison-corpus/held-out.js";

/** The rules that answer for each kind. */
export const KIND_RULES: Record<Exclude<CorpusLabel, "honest">, string[]> = {
  addressed: ["poison/addressed-to-model", "poison/model-directive"],
  "cross-tool": ["poison/cross-tool-order", "poison/other-server-tool"],
  "secret-request": ["poison/secret-request", "poison/exfiltration", "poison/send-to"],
  "identity-request": ["poison/identity-request"],
  "value-instructions": ["poison/schema-instructions"],
  "role-marker": ["poison/role-marker", "poison/hidden-block"],
  "hidden-carrier": ["poison/hidden-carrier", "poison/invisible-unicode"],
  promotion: ["poison/self-promotion"],
};

interface KindRow {
  kind: string;
  entries: number;
  caught: number;
  flaggedAny: number;
  flagged: number;
  truePositives: number;
  recall: number;
  precision: number;
}

/** Rules that fire on each entry (each entry is linted alone, as one tool of one server). */
export function firedRules(corpus: CorpusEntry[]): Map<string, { rule: string; severity: string; message: string }[]> {
  const out = new Map<string, { rule: string; severity: string; message: string }[]>();
  for (const entry of corpus) {
    const report = lintTools([entry.tool], { rules: ["poison"] });
    out.set(entry.id, report.findings.map((f) => ({ rule: f.rule, severity: f.severity, message: f.message })));
  }
  return out;
}

export function scoreCorpus(corpus: CorpusEntry[]): { rows: KindRow[]; honest: { entries: number; flaggedError: number; flaggedWarning: number }; fired: ReturnType<typeof firedRules> } {
  const fired = firedRules(corpus);
  const rows: KindRow[] = [];
  for (const [kind, rules] of Object.entries(KIND_RULES)) {
    const mine = corpus.filter((e) => e.label === kind);
    const caught = mine.filter((e) => fired.get(e.id)!.some((f) => rules.includes(f.rule))).length;
    const flaggedAny = mine.filter((e) => fired.get(e.id)!.length > 0).length;
    const flaggedByKind = corpus.filter((e) => fired.get(e.id)!.some((f) => rules.includes(f.rule)));
    const truePositives = flaggedByKind.filter((e) => e.label !== "honest").length;
    rows.push({ kind, entries: mine.length, caught, flaggedAny, flagged: flaggedByKind.length, truePositives, recall: caught / (mine.length || 1), precision: flaggedByKind.length ? truePositives / flaggedByKind.length : 1 });
  }
  const honest = corpus.filter((e) => e.label === "honest");
  return {
    rows,
    honest: {
      entries: honest.length,
      flaggedError: honest.filter((e) => fired.get(e.id)!.some((f) => f.severity === "error")).length,
      flaggedWarning: honest.filter((e) => fired.get(e.id)!.some((f) => f.severity === "warning")).length,
    },
    fired,
  };
}

function pct(x: number): string {
  return `${(100 * x).toFixed(0)}%`;
}

function main(): void {
  const json = process.argv.includes("--json");
  const misses = process.argv.includes("--misses");
  const halves = { dev: DEV_CORPUS, "held-out": HELD_OUT_CORPUS };
  const results = Object.fromEntries(Object.entries(halves).map(([name, corpus]) => [name, scoreCorpus(corpus)]));
  if (json) {
    console.log(JSON.stringify(Object.fromEntries(Object.entries(results).map(([name, r]) => [name, { rows: r.rows, honest: r.honest }])), null, 2));
    return;
  }
  console.log("| kind | dev: recall | dev: precision | held-out: recall | held-out: precision | held-out: flagged by any poison rule |");
  console.log("|---|---|---|---|---|---|");
  const dev = results.dev.rows;
  const held = results["held-out"].rows;
  for (let i = 0; i < dev.length; i++) {
    const d = dev[i];
    const h = held[i];
    console.log(`| ${d.kind} | ${d.caught}/${d.entries} (${pct(d.recall)}) | ${d.truePositives}/${d.flagged} (${pct(d.precision)}) | ${h.caught}/${h.entries} (${pct(h.recall)}) | ${h.truePositives}/${h.flagged} (${pct(h.precision)}) | ${h.flaggedAny}/${h.entries} |`);
  }
  const total = (rows: KindRow[], key: "caught" | "entries" | "flaggedAny") => rows.reduce((s, r) => s + r[key], 0);
  console.log(`| **all poisoned** | ${total(dev, "caught")}/${total(dev, "entries")} | | ${total(held, "caught")}/${total(held, "entries")} | | ${total(held, "flaggedAny")}/${total(held, "entries")} |`);
  for (const [name, r] of Object.entries(results)) {
    console.log(`| honest (${name}) | ${r.honest.entries} entries: ${r.honest.flaggedError} with an error, ${r.honest.flaggedWarning} with a warning |`);
  }
  if (misses) {
    for (const [name, r] of Object.entries(results)) {
      const corpus = halves[name as keyof typeof halves];
      for (const entry of corpus) {
        const hits = r.fired.get(entry.id)!;
        const rules = entry.label === "honest" ? [] : KIND_RULES[entry.label];
        const wrong = entry.label === "honest" ? hits.length > 0 : !hits.some((f) => rules.includes(f.rule));
        if (wrong) console.log(`${name} ${entry.id} [${entry.label}] ${JSON.stringify(entry.tool).slice(0, 260)}\n   fired: ${hits.map((h) => `${h.rule}: ${h.message}`).join(" | ") || "nothing"}`);
      }
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
