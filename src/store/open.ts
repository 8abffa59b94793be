/**
 * Opens the store a `--store` value names: a file path is the embedded SQLite store, a `postgres://` (or
 * `postgresql://`) URL the shared PostgreSQL store. Both come back migrated and ready.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { ToolsearchError } from "../errors.js";
import { SqliteStore } from "./sqlite.js";
import type { Store } from "./types.js";

/** `$TOOLSEARCH_HOME`, or `~/.toolsearch` when it is unset. */
export function toolsearchHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.TOOLSEARCH_HOME || join(homedir(), ".toolsearch");
}

/**
 * The store every command uses when neither `--store` nor `TOOLSEARCH_STORE`(`_FILE`) names one:
 * `$TOOLSEARCH_DEFAULT_STORE`, else SQLite at `$TOOLSEARCH_HOME/store.sqlite`. The container image sets
 * `TOOLSEARCH_DEFAULT_STORE=/data/toolsearch.sqlite`: a default, not a setting, so a store URL given in
 * `TOOLSEARCH_STORE_FILE` (a mounted secret) replaces it instead of clashing with it as a second `TOOLSEARCH_STORE` would.
 */
export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return env.TOOLSEARCH_DEFAULT_STORE || join(toolsearchHome(env), "store.sqlite");
}

/** Whether a `--store` value names a PostgreSQL database rather than a file. */
export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

/** Options of `openStore`. */
export interface OpenStoreOptions {
  /** PostgreSQL only: connections in the pool (`serve --pg-pool-size`; default `$TOOLSEARCH_PG_POOL_SIZE`, else 10). */
  poolSize?: number;
}

/**
 * The store `spec` names (default: `defaultStorePath()`), with its schema created or upgraded.
 *
 * @example
 * const store = await openStore("./store.sqlite");
 * const shared = await openStore("postgres://toolsearch@db/toolsearch", { poolSize: 20 });
 */
export async function openStore(spec: string = defaultStorePath(), options: OpenStoreOptions = {}): Promise<Store> {
  const store = isPostgresUrl(spec) ? await openPostgres(spec, options) : new SqliteStore(spec);
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return store;
}

async function openPostgres(url: string, options: OpenStoreOptions): Promise<Store> {
  // A variable specifier: the PostgreSQL module (and `pg`) load only when a URL asks for them.
  const specifier = "./postgres.js";
  let module: { PostgresStore?: new (url: string, options: OpenStoreOptions) => Store };
  try {
    module = (await import(specifier)) as typeof module;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== "ERR_MODULE_NOT_FOUND") throw error;
    module = {};
  }
  if (!module.PostgresStore) {
    throw new ToolsearchError("store_unavailable", "this build of toolsearch has no PostgreSQL store; use a file path for --store (SQLite)");
  }
  return new module.PostgresStore(url, options);
}
