/** `toolsearch search QUERY --catalog FILE [--engine E] [--limit N]` */
import type { Command } from "commander";
import type { ToolIndex } from "../../indexes/tool-index.js";
import { MAX_LIMIT, TOOL_ENGINES, type ToolEngine } from "../../indexes/tool-index-options.js";
import { truncateAtWord } from "../../text/truncate.js";
import { addEmbedderOptions, type EmbedderFlags, embedderFromFlags, needsEmbeddings, prepareWithProgress } from "../embedder-flags.js";
import { openCatalog } from "../index-cache.js";
import { parseInteger, printJson, printLines } from "../output.js";

interface SearchFlags extends EmbedderFlags {
  catalog: string;
  engine: string;
  limit: number;
  json?: boolean;
}

export function registerSearch(program: Command): void {
  const command = program
    .command("search")
    .description("search a tool catalog")
    .argument("<query>", "keywords (bm25), a regular expression (regex) or a request in plain words (semantic, hybrid)")
    .requiredOption("-c, --catalog <file>", "tool catalog: JSON, {tools:[…]}, JSONL or YAML")
    .option("-e, --engine <engine>", TOOL_ENGINES.join(", "), "bm25")
    .option("-l, --limit <n>", `number of results (1–${MAX_LIMIT})`, parseInteger("--limit", 1, MAX_LIMIT), 5)
    .option("--json", "machine-readable output");
  addEmbedderOptions(command)
    .action(async (query: string, flags: SearchFlags) => {
      const embedder = needsEmbeddings(flags.engine) ? await embedderFromFlags(flags) : undefined;
      const { index, save } = await openCatalog(flags.catalog, { embedder }, flags.cache);
      if (embedder) await prepareWithProgress(index, "embedding tools");
      save();
      const results = await index.search(query, { engine: flags.engine as ToolEngine, limit: flags.limit }).finally(() => embedder?.close());
      if (flags.json) return printJson({ engine: flags.engine, query, results });
      if (results.length === 0) return printLines(noMatch(index, query, flags.engine));
      printLines(results.flatMap((r, i) => [
        `${i + 1}. ${r.name}  (score ${r.score.toFixed(3)}${r.category ? `, ${r.category}` : ""})`,
        ...(r.description ? [`   ${truncateAtWord(r.description, 200)}`] : []),
      ]));
    });
}

function noMatch(index: ToolIndex, query: string, engine: string): string[] {
  const lines = [`No tool matched ${JSON.stringify(query)} (${engine}, ${index.size} tools).`];
  const suggestions = engine === "regex" ? [] : index.suggest(query);
  if (suggestions.length) lines.push(`Close terms and names: ${suggestions.join(", ")}`);
  lines.push(engine === "regex"
    ? "Try a looser pattern, such as one word, or alternatives joined with | (weather|forecast)."
    : "Try fewer or more general words, or --engine regex with a pattern.");
  return lines;
}
