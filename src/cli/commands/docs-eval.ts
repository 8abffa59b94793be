/** `toolsearch eval --docs PATH`: one searcher per document engine, each ranking the top 10 document ids. */
import { DocumentIndex } from "../../indexes/document-index.js";
import { DOCUMENT_ENGINES, type DocumentEngine } from "../../indexes/document-index-options.js";
import { documentEvaluators, PLAIN_ENGINE } from "../../eval/searchers.js";
import { embedderFromFlags, needsEmbeddings, prepareWithProgress } from "../embedder-flags.js";
import { UsageError } from "../output.js";
import type { SearcherFactory } from "./eval.js";

export const docsSearchers: SearcherFactory = async (engines, flags) => {
  for (const engine of engines) {
    if (engine !== PLAIN_ENGINE && !DOCUMENT_ENGINES.includes(engine as DocumentEngine)) {
      throw new UsageError(`unknown engine ${JSON.stringify(engine)} for documents: use ${[...DOCUMENT_ENGINES, PLAIN_ENGINE].join(", ")}`);
    }
  }
  const embedder = needsEmbeddings(...engines) ? await embedderFromFlags(flags, true) : undefined;
  const index = await DocumentIndex.fromFile(flags.docs!, { embedder });
  if (embedder) await prepareWithProgress(index, "embedding passages");
  const { searchers, explain } = documentEvaluators(index, engines as (DocumentEngine | typeof PLAIN_ENGINE)[]);
  return { known: (id) => index.get(id) !== undefined, searchers, explain };
};
