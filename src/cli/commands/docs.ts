/**
 * `toolsearch docs search QUERY --docs PATH [--engine E] [--limit N]` and
 * `toolsearch docs read ID --docs PATH [--offset N] [--max-chars N]`: the knowledge base from the command line.
 */
import type { Command } from "commander";
import { DocumentIndex } from "../../indexes/document-index.js";
import {
  DEFAULT_READ_CHARS, DOCUMENT_ENGINES, type DocumentEngine, MAX_READ_CHARS,
} from "../../indexes/document-index-options.js";
import { MAX_LIMIT } from "../../indexes/tool-index-options.js";
import { noMatchGuidance } from "../../metatools/docs-tools.js";
import { addEmbedderOptions, type EmbedderFlags, embedderFromFlags, needsEmbeddings, prepareWithProgress } from "../embedder-flags.js";
import { parseInteger, printJson, printLines, UsageError } from "../output.js";

interface SearchFlags extends EmbedderFlags {
  docs: string;
  engine: string;
  limit: number;
  json?: boolean;
}

interface ReadFlags {
  docs: string;
  offset: number;
  maxChars: number;
  json?: boolean;
}

export function registerDocs(program: Command): void {
  const docs = program.command("docs").description("search and read a knowledge base (JSONL or a folder of Markdown)");
  const search = docs
    .command("search")
    .description("search documents: previews with ids, best first")
    .argument("<query>", "keywords")
    .requiredOption("-d, --docs <path>", "documents: JSONL of {id, title, body, url?} or a folder of Markdown files")
    .option("-e, --engine <engine>", DOCUMENT_ENGINES.join(" or "), "bm25")
    .option("-l, --limit <n>", `number of results (1–${MAX_LIMIT})`, parseInteger("--limit", 1, MAX_LIMIT), 5)
    .option("--json", "machine-readable output");
  addEmbedderOptions(search)
    .action(async (query: string, flags: SearchFlags) => {
      const engine = checkEngine(flags.engine);
      const embedder = needsEmbeddings(engine) ? await embedderFromFlags(flags) : undefined;
      const index = await DocumentIndex.fromFile(flags.docs, { embedder });
      if (embedder) await prepareWithProgress(index, "embedding passages");
      const results = await index.search(query, { engine, limit: flags.limit }).finally(() => embedder?.close());
      if (flags.json) return printJson({ query, results });
      if (results.length === 0) return printLines([noMatchGuidance(index, query)]);
      printLines(results.flatMap((r, i) => [
        `${i + 1}. ${r.id}  ${r.title}  (score ${r.score.toFixed(3)}, offset ${r.offset})`,
        `   ${r.snippet}`,
      ]));
    });
  docs
    .command("read")
    .description("read one document, a page at a time")
    .argument("<id>", "document id, as search shows it")
    .requiredOption("-d, --docs <path>", "documents: JSONL or a folder of Markdown files")
    .option("-o, --offset <n>", "where to start, in characters", parseInteger("--offset", 0, Number.MAX_SAFE_INTEGER), 0)
    .option("-m, --max-chars <n>", `page size in characters (1–${MAX_READ_CHARS})`, parseInteger("--max-chars", 1, MAX_READ_CHARS), DEFAULT_READ_CHARS)
    .option("--json", "machine-readable output")
    .action(async (id: string, flags: ReadFlags) => {
      const index = await DocumentIndex.fromFile(flags.docs);
      const page = index.read(id, { offset: flags.offset, maxChars: flags.maxChars });
      if (flags.json) return printJson(page);
      const end = page.offset + page.text.length;
      const more = page.next_offset === undefined ? "end of document" : `continue with --offset ${page.next_offset}`;
      printLines([`# ${page.title}  (${page.id})`, "", page.text, "", `[characters ${page.offset}–${end} of ${page.total_chars}; ${more}]`]);
    });
}

function checkEngine(engine: string): DocumentEngine {
  if (!DOCUMENT_ENGINES.includes(engine as DocumentEngine)) {
    throw new UsageError(`unknown engine ${JSON.stringify(engine)} for documents: use ${DOCUMENT_ENGINES.join(", ")}`);
  }
  return engine as DocumentEngine;
}
