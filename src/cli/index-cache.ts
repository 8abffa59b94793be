/**
 * The CLI's index cache: a snapshot of each catalog's built index (with its vectors, once made) in a `snapshots`
 * folder beside the embedding cache, named by the catalog's path and content. A second run on an unchanged catalog
 * loads the snapshot instead of validating and analyzing every tool again; a changed file gets a new snapshot and the
 * old one of that path is removed. A snapshot that cannot be read is rebuilt, never an error. Catalogs under
 * `SNAPSHOT_MIN_TOOLS` build fast enough without one.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ToolsearchError } from "../errors.js";
import { ToolIndex } from "../indexes/tool-index.js";
import type { ToolIndexOptions } from "../indexes/tool-index-options.js";
import { curationOfFile } from "../usage/catalog-curation.js";

/** A catalog's index and how to keep its snapshot up to date. */
export interface CachedIndex {
  index: ToolIndex;
  /** Writes the snapshot when it is missing or the index now holds vectors it lacked. */
  save(): void;
}

/** Below this many tools a build is quick anyway and no snapshot is written (a file would only clutter). */
export const SNAPSHOT_MIN_TOOLS = 2000;

const sha = (data: string | Buffer) => createHash("sha256").update(data).digest("hex").slice(0, 24);

/**
 * Opens `catalog` through the snapshot cache beside `embeddingCache` (the `--cache` file), or builds it plainly
 * when the cache is off (`false`).
 */
export async function openCatalog(catalog: string, options: ToolIndexOptions, embeddingCache: string | false): Promise<CachedIndex> {
  if (embeddingCache === false) return { index: await ToolIndex.fromFile(catalog, options), save: () => {} };
  let bytes: Buffer;
  try {
    bytes = readFileSync(catalog);
  } catch {
    // Let the loader word the error.
    return { index: await ToolIndex.fromFile(catalog, options), save: () => {} };
  }
  const dir = join(dirname(embeddingCache), "snapshots");
  const prefix = sha(resolve(catalog));
  const file = join(dir, `${prefix}-${sha(bytes)}.snap`);
  let index: ToolIndex | undefined;
  try {
    // A snapshot holds the index, not the file's curation: that is read again from the file.
    if (existsSync(file)) index = ToolIndex.fromSnapshot(readFileSync(file), { ...curationOfFile(catalog, bytes.toString("utf8")), ...options });
  } catch (error) {
    if (!(error instanceof ToolsearchError && error.code === "snapshot_invalid")) throw error;
  }
  const fresh = index === undefined;
  const loaded = index ?? (await ToolIndex.fromFile(catalog, options));
  const vectorsAtLoad = loaded.vectorCount;
  return {
    index: loaded,
    save() {
      if (loaded.size < SNAPSHOT_MIN_TOOLS || (!fresh && loaded.vectorCount <= vectorsAtLoad)) return;
      try {
        mkdirSync(dir, { recursive: true });
        // Written aside then renamed, so a reader never sees half a file.
        writeFileSync(`${file}.tmp`, loaded.snapshot());
        renameSync(`${file}.tmp`, file);
        for (const old of readdirSync(dir)) if (old.startsWith(`${prefix}-`) && join(dir, old) !== file) rmSync(join(dir, old), { force: true });
      } catch (error) {
        process.stderr.write(`toolsearch: could not save the index snapshot ${file}: ${(error as Error).message}\n`);
      }
    },
  };
}
