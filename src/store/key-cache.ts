/**
 * API-key lookups for a service that must keep answering searches while its database is away.
 *
 * Every authenticated request looks its key up by hash. If that lookup fails whenever the store is away, a
 * PostgreSQL restart becomes a fleet-wide outage of reads too. So the last answer for each key is remembered, and
 * when the store cannot be reached it is used, however old: a key that worked a minute ago keeps working for reads
 * until the store is back (writes fail anyway then). A key never seen before cannot be checked, and the request
 * fails with `store_unavailable` as before. By default the store is still asked every time, so a revoked key stops
 * at once while the store answers; `ttlMs` trades that for fewer round trips (a revocation then takes up to `ttlMs`).
 *
 * @example
 * const keys = new KeyCache(store);
 * const key = await keys.keyByHash(hashKey(bearer)); // ApiKeyRecord | undefined
 */
import { ToolsearchError } from "../errors.js";
import type { ApiKeyRecord, Store } from "./types.js";

/** Options of a `KeyCache`. */
export interface KeyCacheOptions {
  /** How long an answer (found or not found) is trusted without asking the store (default 0: always ask). */
  ttlMs?: number;
  /** Most hashes remembered; the oldest are forgotten first (default 10000). */
  maxEntries?: number;
  /** The clock (tests). */
  now?: () => number;
}

interface Entry {
  key: ApiKeyRecord | undefined;
  at: number;
}

export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(
    private readonly store: Pick<Store, "keyByHash">,
    options: KeyCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 0;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** The live key with this hash, as `Store.keyByHash`, from memory when fresh (or when the store is away). */
  async keyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const cached = this.entries.get(hash);
    const now = this.now();
    if (cached && now - cached.at < this.ttlMs) return cached.key;
    try {
      const key = await this.store.keyByHash(hash);
      this.remember(hash, { key, at: now });
      return key;
    } catch (error) {
      if (cached && error instanceof ToolsearchError && error.code === "store_unavailable") return cached.key;
      throw error;
    }
  }

  /** Forgets everything (e.g. after this process revoked a key, so that it stops at once here). */
  clear(): void {
    this.entries.clear();
  }

  private remember(hash: string, entry: Entry): void {
    this.entries.delete(hash);
    this.entries.set(hash, entry);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
