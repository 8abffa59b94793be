/**
 * The flags that pick and cache an embedding provider (`--embedder`, `--cache` …), shared by `search`, `docs search`
 * and `eval`, and a progress bar while a catalog is embedded.
 */
import type { Command } from "commander";
import { DEFAULT_CACHE_PATH, EmbeddingCache } from "../embeddings/cache.js";
import { Embedder } from "../embeddings/embedder.js";
import { EMBEDDER_NAMES, providerFromSpec } from "../embeddings/from-spec.js";
import type { EmbedProgress } from "../embeddings/provider.js";
import { secretFromEnv } from "../ops/environment.js";
import { parseInteger } from "./output.js";
import { createProgress } from "./progress.js";

export interface EmbedderFlags {
  embedder: string;
  embeddingUrl?: string;
  embeddingDimensions?: number;
  /** A file, or false with `--no-cache`. */
  cache: string | false;
}

/** Adds the embedder flags to a command. */
export function addEmbedderOptions(command: Command): Command {
  return command
    .option("--embedder <name>", `embedding provider for semantic and hybrid: ${EMBEDDER_NAMES}`, "use-lite")
    .option("--embedding-url <url>", "base URL of an OpenAI-compatible endpoint, for http:<model> (default https://api.openai.com/v1; key from TOOLSEARCH_EMBEDDING_KEY or OPENAI_API_KEY)")
    .option("--embedding-dimensions <n>", "vector length of the http:<model> (default 1536)", parseInteger("--embedding-dimensions", 1, 65_536))
    .option("--cache <file>", "embedding cache (SQLite)", DEFAULT_CACHE_PATH)
    .option("--no-cache", "keep no embeddings on disk");
}

/** Whether any of the engines needs embeddings. */
export function needsEmbeddings(...engines: string[]): boolean {
  return engines.some((e) => e === "semantic" || e === "hybrid");
}

/** The embedder the flags describe; `persistQueries` keeps query vectors too (for `eval`, which repeats them). */
export async function embedderFromFlags(flags: EmbedderFlags, persistQueries = false): Promise<Embedder> {
  const provider = await providerFromSpec(flags.embedder, {
    baseUrl: flags.embeddingUrl,
    dimensions: flags.embeddingDimensions,
    apiKey: secretFromEnv("TOOLSEARCH_EMBEDDING_KEY") ?? secretFromEnv("OPENAI_API_KEY"),
  });
  const cache = flags.cache === false ? false : new EmbeddingCache({ path: flags.cache });
  return new Embedder(provider, { cache, persistQueries, queryCacheSize: persistQueries ? 100_000 : undefined });
}

/** Embeds what an index still lacks, with a bar (counts and ETA) on an interactive terminal. */
export async function prepareWithProgress(index: { prepareEmbeddings(onProgress?: EmbedProgress): Promise<void> }, label = "embedding"): Promise<void> {
  const progress = createProgress();
  let started = false;
  try {
    await index.prepareEmbeddings((done, total) => {
      if (!started) progress.start(label, total);
      started = true;
      progress.update(done);
    });
  } finally {
    progress.stop();
  }
}
