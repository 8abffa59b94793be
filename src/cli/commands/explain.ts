/** `toolsearch explain QUERY NAME (--catalog FILE | --docs PATH) [--engine E] [--json]` */
import type { Command } from "commander";
import type { Explanation } from "../../indexes/explain.js";
import { DocumentIndex } from "../../indexes/document-index.js";
import type { DocumentEngine } from "../../indexes/document-index-options.js";
import { ToolIndex } from "../../indexes/tool-index.js";
import { TOOL_ENGINES, type ToolEngine } from "../../indexes/tool-index-options.js";
import { addEmbedderOptions, type EmbedderFlags, embedderFromFlags, needsEmbeddings, prepareWithProgress } from "../embedder-flags.js";
import { printJson, printLines, table, UsageError } from "../output.js";

interface ExplainFlags extends EmbedderFlags {
  catalog?: string;
  docs?: string;
  engine: string;
  fuzzy: boolean;
  json?: boolean;
}

export function registerExplain(program: Command): void {
  const command = program
    .command("explain")
    .description("why a tool (or document) ranks where it does for a query, and what its score is made of")
    .argument("<query>", "the query, as given to search")
    .argument("<name>", "the tool name (or document id with --docs)")
    .option("-c, --catalog <file>", "tool catalog")
    .option("-d, --docs <path>", "documents (JSONL or a folder of Markdown)")
    .option("-e, --engine <engine>", TOOL_ENGINES.join(", "), "bm25")
    .option("--no-fuzzy", "match exact terms only (no typo expansions)")
    .option("--json", "machine-readable output");
  addEmbedderOptions(command)
    .action(async (query: string, name: string, flags: ExplainFlags) => {
      if (!flags.catalog === !flags.docs) throw new UsageError("explain takes exactly one of --catalog and --docs");
      const embedder = needsEmbeddings(flags.engine) ? await embedderFromFlags(flags) : undefined;
      const index = flags.catalog ? await ToolIndex.fromFile(flags.catalog, { embedder }) : await DocumentIndex.fromFile(flags.docs!, { embedder });
      if (embedder) await prepareWithProgress(index, flags.catalog ? "embedding tools" : "embedding passages");
      const options = { engine: flags.engine as ToolEngine & DocumentEngine, fuzzy: flags.fuzzy };
      const why = await index.explain(query, name, options).finally(() => embedder?.close());
      if (flags.json) return printJson(why);
      printLines(formatExplanation(why));
    });
}

const num = (x: number) => x.toFixed(3);

/** An explanation for people: the verdict, the parts of the score (with their total), and what ranks above. */
export function formatExplanation(why: Explanation): string[] {
  const verdict = why.rank === null
    ? `${why.name} does not match ${JSON.stringify(why.query)} (${why.engine}); ${why.above} item(s) do.`
    : `${why.name} ranks #${why.rank} for ${JSON.stringify(why.query)} (${why.engine}, score ${num(why.score)}).`;
  const lines = [verdict];
  if (why.note) lines.push(`Note: ${why.note}.`);
  if (why.ranker) {
    lines.push("", `Learned ranker (${why.ranker.model} model) score ${num(why.ranker.score)} = sum of the features' parts:`);
    lines.push(...table(["feature", "value", "weight", "part"], why.ranker.features.map((f) => [f.feature, num(f.value), f.weight === undefined ? "—" : num(f.weight), num(f.contribution)])));
    const { coverage } = why.ranker;
    if (coverage) lines.push(`Placed by coverage of the request's clauses (weight ${num(coverage.weight)}): score ${num(coverage.score)}`);
  }
  if (why.parts) {
    lines.push("", why.ranker ? "Fusion before the ranker (its rank and place are features) = sum of the engines' parts:" : "Fused score = sum of the engines' parts:");
    lines.push(...table(["engine", "raw score", "part"], why.parts.map((p) => [p.engine, num(p.raw), num(p.contribution)])));
  }
  if (why.terms?.length) {
    lines.push("", why.engine === "hybrid" ? "BM25 score = sum of term contributions:" : "Score = sum of term contributions:");
    const rows = why.terms.map((t) => [
      t.typo ? `${t.term} (typo of ${t.typo.query_term}, ${t.typo.distance} edit${t.typo.distance > 1 ? "s" : ""})` : t.term,
      t.passage === undefined ? t.field : `${t.field} #${t.passage}`,
      num(t.contribution),
    ]);
    lines.push(...table(["term", "field", "contribution"], rows));
  }
  if (why.fields?.length) {
    lines.push("", "Matched fields (the first decides the score):");
    for (const f of why.fields) lines.push(`  ${f.field}: ${f.matches.map((m) => `${JSON.stringify(m.text)} at ${m.start}`).join(", ")}`);
  }
  if (why.semantic) {
    lines.push("", `Similarity ${num(why.semantic.similarity)}, closest to the sentence ${JSON.stringify(why.semantic.sentence)}.`);
    if (why.semantic.sentences.length > 1) for (const s of why.semantic.sentences) lines.push(`  ${num(s.similarity)}  ${s.text}`);
  }
  if (why.outranked_by.length) {
    lines.push("", `Ranked above it${why.above > why.outranked_by.length ? ` (best ${why.outranked_by.length} of ${why.above})` : ""}:`);
    why.outranked_by.forEach((o, i) => lines.push(`  ${i + 1}. ${o.name}  (score ${num(o.score)})`));
  }
  return lines;
}
