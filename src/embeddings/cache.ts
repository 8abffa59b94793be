/**
 * Persistent embedding cache: one SQLite file (default `.toolsearch/embeddings.sqlite`), vectors keyed by provider id
 * and a SHA-256 of the embedded text. An unchanged catalog is ready after a restart without calling the provider;
 * a changed tool misses alone. A corrupt or foreign file is reported, moved aside and rebuilt; a cache that cannot be
 * opened at all degrades to no cache, so a search never fails because of it.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";

/** Default cache location, relative to the working directory. */
export const DEFAULT_CACHE_PATH = join(".toolsearch", "embeddings.sqlite");

/** Marks our files, so that a foreign SQLite database is never written into. */
const APPLICATION_ID = 0x54534531; // "TSE1"
const SCHEMA_VERSION = 1;

/** Options of an embedding cache. */
export interface EmbeddingCacheOptions {
  /** SQLite file (default `.toolsearch/embeddings.sqlite`); `:memory:` keeps it in memory. */
  path?: string;
  /** Where problems with the file are reported (default: a line on stderr). */
  warn?: (message: string) => void;
}

/** SHA-256 of a text, hex: the cache key together with the provider id. */
export function hashText(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export class EmbeddingCache {
  readonly path: string;
  private db: Database.Database | undefined;
  private readonly warn: (message: string) => void;

  constructor(options: EmbeddingCacheOptions = {}) {
    this.path = options.path ?? DEFAULT_CACHE_PATH;
    this.warn = options.warn ?? ((m) => process.stderr.write(`toolsearch: ${m}\n`));
    this.db = this.open();
  }

  /** Whether vectors are kept on disk (false after a failure that left no usable file). */
  get available(): boolean {
    return this.db !== undefined;
  }

  /** Cached vectors of these hashes for this provider; absent keys are misses. */
  getMany(provider: string, hashes: string[], dimensions: number): Map<string, Float32Array> {
    const found = new Map<string, Float32Array>();
    if (!this.db || hashes.length === 0) return found;
    try {
      const select = this.db.prepare("SELECT vector FROM embeddings WHERE provider = ? AND hash = ?").pluck();
      for (const hash of new Set(hashes)) {
        const blob = select.get(provider, hash) as Buffer | undefined;
        // A vector of the wrong size (a provider that changed its output under the same id) counts as a miss.
        if (blob && blob.byteLength === dimensions * 4) found.set(hash, toVector(blob));
      }
    } catch (error) {
      this.fail("read", error);
    }
    return found;
  }

  /** Stores vectors under their hashes, in one transaction. */
  putMany(provider: string, entries: Array<[hash: string, vector: Float32Array]>): void {
    if (!this.db || entries.length === 0) return;
    try {
      const insert = this.db.prepare("INSERT OR REPLACE INTO embeddings (provider, hash, vector) VALUES (?, ?, ?)");
      this.db.transaction(() => {
        for (const [hash, vector] of entries) insert.run(provider, hash, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
      })();
    } catch (error) {
      this.fail("write", error);
    }
  }

  /** Number of cached vectors (all providers). */
  count(): number {
    if (!this.db) return 0;
    return this.db.prepare("SELECT count(*) FROM embeddings").pluck().get() as number;
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }

  /** Opens (or creates) the file; a file that is not ours or is damaged is moved aside and started afresh. */
  private open(): Database.Database | undefined {
    if (this.path !== ":memory:") mkdirSync(dirname(this.path), { recursive: true });
    try {
      return this.prepare(new Database(this.path));
    } catch (error) {
      if (this.path === ":memory:" || !existsSync(this.path)) {
        this.warn(`embedding cache ${this.path} could not be opened (${message(error)}); embeddings will not be kept`);
        return undefined;
      }
      const aside = `${this.path}.broken-${Date.now()}`;
      this.warn(`embedding cache ${this.path} is unreadable or not a toolsearch cache (${message(error)}); moved to ${aside} and rebuilt`);
      try {
        renameSync(this.path, aside);
        return this.prepare(new Database(this.path));
      } catch (again) {
        this.warn(`embedding cache ${this.path} could not be rebuilt (${message(again)}); embeddings will not be kept`);
        return undefined;
      }
    }
  }

  /** Checks the file is ours (or empty) and healthy, and creates the table. Throws otherwise. */
  private prepare(db: Database.Database): Database.Database {
    try {
      const applicationId = db.pragma("application_id", { simple: true }) as number;
      const tables = db.prepare("SELECT count(*) FROM sqlite_master").pluck().get() as number;
      if (tables > 0 && applicationId !== APPLICATION_ID) throw new Error("the file holds another application's database");
      const version = db.pragma("user_version", { simple: true }) as number;
      if (tables > 0 && version !== SCHEMA_VERSION) throw new Error(`schema version ${version}, expected ${SCHEMA_VERSION}`);
      const check = db.pragma("quick_check", { simple: true });
      if (check !== "ok") throw new Error(`integrity check: ${String(check)}`);
      if (this.path !== ":memory:") db.pragma("journal_mode = WAL");
      // Vectors are read once per build and then live in the index; better-sqlite3's 16 MB page cache per connection
      // would only hold copies of them for the life of a server. SQLite's own default, 2 MB, as the store has.
      db.pragma("cache_size = -2000");
      db.exec("CREATE TABLE IF NOT EXISTS embeddings (provider TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (provider, hash)) WITHOUT ROWID");
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** A failure after opening (disk full, file replaced underneath): reported once, then the cache is off. */
  private fail(what: string, error: unknown): void {
    this.warn(`embedding cache ${this.path}: ${what} failed (${message(error)}); continuing without the cache`);
    try {
      this.db?.close();
    } catch {
      // Already broken; nothing more to release.
    }
    this.db = undefined;
  }
}

function toVector(blob: Buffer): Float32Array {
  // Copy: the blob's memory may be reused by SQLite, and Float32Array needs 4-byte alignment.
  const out = new Float32Array(blob.byteLength / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
