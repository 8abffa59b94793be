/** Shared by the tests of src/server/collections/: a fresh SQLite store and a tool body. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openStore } from "../../../src/store/open.js";
import type { Store } from "../../../src/store/types.js";
import { makeTempDir } from "../../helpers/temp-dir.js";

/** A fresh SQLite store in a temporary folder (removed when the test file's process exits). */
function freshStore(): Promise<Store> {
  return openStore(join(makeTempDir("toolsearch-collections-"), "store.sqlite"));
}

/** Runs `body` on a fresh SQLite store, closed afterwards whatever happens. */
export async function withStore(body: (store: Store) => Promise<void>): Promise<void> {
  const store = await freshStore();
  try {
    await body(store);
  } finally {
    await store.close();
  }
}

export const tool = (name: string, description: string) => ({ name, description, input_schema: { type: "object", properties: {} } });

/** An item of `tool`, keyed by its name. */
export const toolItem = (name: string, description: string) => ({ key: name, body: tool(name, description) });

/** A `startMcp` for loaders of tests without `mcp` collections: calling it fails the test. */
export const noMcp = (): never => assert.fail("no mcp collection here");

/** A failure handler that fails the test: nothing should fail. */
export const unexpected = (error: unknown): never => assert.fail(`unexpected: ${String(error)}`);
