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

/** The default store: SQLite at `$TOOLSEARCH_HOME/store.sqlite`. */
export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(toolsearchHome(env), "store.sqlite");
}

/** Whether a `--store` value names a PostgreSQL database rather than a file. */
export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

/**
 * The store `spec` names (default: `defaultStorePath()`), with its schema created or upgraded.
 *
 * @example
 * const store = await openStore("./store.sqlite");
 * const shared = await openStore("postgres://toolsearch@db/toolsearch");
 */
export async function openStore(spec: string = defaultStorePath()): Promise<Store> {
  const store = isPostgresUrl(spec) ? await openPostgres(spec) : new SqliteStore(spec);
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return store;
}

async function openPostgres(url: string): Promise<Store> {
  // A variable specifier: the PostgreSQL module (and `pg`) load only when a URL asks for them.
  const specifier = "./postgres.js";
  let module: { PostgresStore?: new (url: string) => Store };
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
  return new module.PostgresStore(url);
}
