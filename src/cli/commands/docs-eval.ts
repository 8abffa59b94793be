/** `toolsearch eval --docs PATH`: one searcher per document engine, each ranking the top 10 document ids. */
import { DocumentIndex } from "../../indexes/document-index.js";
import { DOCUMENT_ENGINES, type DocumentEngine, PLAIN_DOCUMENT_BM25 } from "../../indexes/document-index-options.js";
import type { Searcher } from "../../eval/runner.js";
import { embedderFromFlags, needsEmbeddings, prepareWithProgress } from "../embedder-flags.js";
import { UsageError } from "../output.js";
import { PLAIN_ENGINE, type SearcherFactory } from "./eval.js";

export const docsSearchers: SearcherFactory = async (engines, flags) => {
  for (const engine of engines) {
    if (engine !== PLAIN_ENGINE && !DOCUMENT_ENGINES.includes(engine as DocumentEngine)) {
      throw new UsageError(`unknown engine ${JSON.stringify(engine)} for documents: use ${[...DOCUMENT_ENGINES, PLAIN_ENGINE].join(", ")}`);
    }
  }
  const embedder = needsEmbeddings(...engines) ? await embedderFromFlags(flags, true) : undefined;
  const index = await DocumentIndex.fromFile(flags.docs!, { embedder });
  if (embedder) await prepareWithProgress(index, "embedding passages");
  const plain = engines.includes(PLAIN_ENGINE) ? new DocumentIndex(index.ids().map((id) => index.get(id)!), { bm25: PLAIN_DOCUMENT_BM25 }) : undefined;
  const searchers: Record<string, Searcher> = {};
  for (const engine of engines) {
    searchers[engine] = engine === PLAIN_ENGINE
      ? async (q) => (await plain!.search(q, { limit: 10 })).map((h) => h.id)
      : async (q) => (await index.search(q, { engine: engine as DocumentEngine, limit: 10 })).map((h) => h.id);
  }
  return { known: (id) => index.get(id) !== undefined, searchers };
};
