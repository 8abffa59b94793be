/**
 * The shapes the parts of `Collections` (src/server/collections.ts) share: its options, one collection as served,
 * and the events metrics observe. Plain types and two constructors, so that every part can import them without
 * importing another part.
 */
import type { Embedder } from "../../embeddings/embedder.js";
import type { DocumentIndex } from "../../indexes/document-index.js";
import type { ToolIndex } from "../../indexes/tool-index.js";
import type { Gateway, GatewayOptions } from "../../mcp/gateway.js";
import type { CollectionKind, CollectionRecord } from "../../store/types.js";
import type { UsageLearner } from "../../usage/events.js";
import type { ScreenMode } from "../../trust/screen.js";

/** Options of `Collections`. */
export interface CollectionsOptions {
  /** Shared by every index, so vectors come from (and go to) the store. Default: each index's own default. */
  embedder?: Embedder;
  /** Upstream timeouts, restarts and idle stop (`idleStopMs`) for `mcp` collections. */
  upstream?: GatewayOptions["upstream"];
  /** `--expose-found`: a session's searches add the upstream tools found to that session's tool list. */
  exposeFound?: boolean;
  /** `--trust-updates`: `mcp` collections serve changed upstream definitions at once (flagged ones are still held). */
  trustUpdates?: boolean;
  /** `--screen-results`: what `mcp` collections do with upstream results aimed at the model (default `warn`). */
  screenResults?: ScreenMode;
  /** Where problems with stored items or upstreams are reported (default: stderr). */
  log?: (line: string) => void;
  /** Changes read per page while catching up (default 1000). */
  pageSize?: number;
  /**
   * Index snapshots of `tools` and `docs` collections in the store: `false` neither reads nor writes them;
   * `saveDelayMs` is how long after the last change a snapshot is saved (default 5000), so a burst of writes costs one.
   */
  snapshots?: false | { saveDelayMs?: number };
  /**
   * Which collections `start` loads: `"all"` (the default), or a warm-up list (`serve --preload NAME…`,
   * `--preload-recent N`: the N most recently changed); the others load on their first request.
   */
  preload?: "all" | { names?: string[]; recent?: number };
  /**
   * Bytes the loaded indexes may hold (`serve --memory-budget MB`), as they count them (`ToolIndex.memoryBytes`);
   * past it the least recently used idle collections are dropped. Default: no bound.
   */
  memoryBudgetBytes?: number;
}

/** What happened to a collection in memory, for metrics. */
export type CollectionEvent =
  | { type: "load"; name: string; seconds: number; source: "snapshot" | "rebuild" }
  | { type: "evict"; name: string };

/** One collection as served: its record and the index that answers for it. */
export interface LoadedCollection {
  name: string;
  kind: CollectionKind;
  /** `seq` of the last change applied to it. */
  version: number;
  updatedAt: string;
  /** Tools of a `tools` collection, or the live upstream tools of an `mcp` one. */
  tools?: ToolIndex;
  docs?: DocumentIndex;
  /** The MCP gateway behind `/mcp/{c}`: started at load for `mcp`, on first use (`gatewayFor`) for the others. */
  gateway?: Gateway;
  /** The stored configuration (for `mcp`: `{mcpServers, …}`). */
  config: Record<string, unknown>;
  /** How its index was last loaded: from a stored snapshot, or built from its items (or its upstreams). */
  source: "snapshot" | "rebuild";
  /** Tools: what its usage events have taught (fed by `recordUsage`, rebuilt from the store at load). */
  learner?: UsageLearner;
  /** The collection's learned signal is switched off (`PUT …/learning {"enabled": false}`). */
  learningOff?: boolean;
  /** False for a collection of the store that this replica has not loaded (or has dropped): it has no index. */
  loaded: boolean;
  /** Items as the store counts them (what an idle collection reports). */
  storedSize: number;
  /** Bytes its index holds (`memoryBytes`), undefined until counted again after a change. */
  bytes?: number;
  /** The index's `semanticEntries` when `bytes` was counted: vectors made since make the count stale. */
  bytesAt?: number;
}

/** A collection about to be filled from the store (`loaded`, no index yet). */
export function emptyEntry(record: CollectionRecord): LoadedCollection {
  return { ...idleEntry(record), loaded: true };
}

/** A collection of the store that this replica holds no index for. */
export function idleEntry(record: CollectionRecord): LoadedCollection {
  return {
    name: record.name, kind: record.kind, version: record.version, updatedAt: record.updatedAt, config: record.config,
    source: "rebuild", loaded: false, storedSize: record.size,
  };
}

/** Copies a freshly read record's version, time and size onto a collection (its index already holds that state). */
export function refreshFrom(collection: LoadedCollection, record: CollectionRecord): void {
  collection.version = record.version;
  collection.updatedAt = record.updatedAt;
  collection.storedSize = record.size;
}

/** The message of anything thrown, for a log line. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
