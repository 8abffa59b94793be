/**
 * For each labelled set: the fused ranking at every lexical share the catalog's fusion fit may choose
 * (`FUSION_WEIGHTS`), scored on the catalog's own pseudo-queries (what the fit sees) and on the set's real queries
 * (what it should predict), and what the fit chose (`ToolIndex.fusionFit`).
 *
 *   node --import tsx scripts/fusion-fit-report.ts [--cache FILE] NAME=CATALOG:QUERIES ...
 */
import { parseArgs } from "node:util";
import { loadCatalogFile } from "../src/catalog/load.js";
import { EmbeddingCache } from "../src/embeddings/cache.js";
import { Embedder } from "../src/embeddings/embedder.js";
import { UseLiteProvider } from "../src/embeddings/use-lite.js";
import { type FusionInput, fuse } from "../src/engines/fusion.js";
import { FUSION_WEIGHTS, pseudoQueries } from "../src/indexes/catalog-fit.js";
import { toolTexts } from "../src/indexes/tool-fields.js";
import { ToolIndex } from "../src/indexes/tool-index.js";
import { loadQueries } from "../src/eval/queries.js";
import { ndcgAt, recallAt } from "../src/eval/metrics.js";

const { values, positionals } = parseArgs({ options: { cache: { type: "string" } }, allowPositionals: true });
const embedder = new Embedder(new UseLiteProvider(), { cache: new EmbeddingCache({ path: values.cache }), persistQueries: true });
for (const arg of positionals) {
  const [name, paths] = arg.split("=");
  const [catalog, queriesFile] = paths.split(":");
  const tools = loadCatalogFile(catalog);
  let captured: FusionInput | undefined;
  const index = new ToolIndex(tools, { embedder, fusion: { method: (input, limit) => ((captured = input), fuse(input, limit)) } });
  await index.prepareEmbeddings();
  const inputsOf = async (queries: { query: string; relevant: string[] }[]) => {
    const out: { input: FusionInput; relevant: Set<string> }[] = [];
    for (const q of queries) {
      await index.search(q.query, { engine: "hybrid", limit: 10 });
      out.push({ input: captured!, relevant: new Set(q.relevant) });
    }
    return out;
  };
  const pseudo = await inputsOf(pseudoQueries(index.list().map((t) => ({ name: t.name, texts: toolTexts(t) })), index.analyzer));
  const real = await inputsOf(loadQueries(queriesFile, (id) => index.get(id) !== undefined));
  const score = (set: typeof real, w: number, metric: typeof ndcgAt) =>
    set.reduce((sum, q) => sum + metric(10, fuse(q.input, 10, { lexicalWeight: w }).map((h) => h.id), q.relevant), 0) / set.length;
  const row = FUSION_WEIGHTS.map((w) => `${w}: ${score(pseudo, w, ndcgAt).toFixed(3)} ${(100 * score(real, w, ndcgAt)).toFixed(1)}/${(100 * score(real, w, recallAt)).toFixed(1)}`);
  const chosen = await new ToolIndex(tools, { embedder }).fusionFit();
  console.log(`${name} (${tools.length} tools, ${pseudo.length} pseudo): fit chose ${chosen.lexicalWeight} | ${row.join(" | ")}`);
}
await embedder.close();
