/**
 * The audit log (SPEC §16): every `call_tool`, every write to a collection and every review decision, in the store.
 *
 * `recordAudit` writes one entry and resolves once it is committed (for rare events such as review decisions).
 * `AuditLog` is what the service uses on the request path: `record` only queues the entry, and the queue is written in
 * one transaction per `flushMs` (or sooner when `maxBatch` entries wait), so a call pays for a push, not for a
 * commit. An entry is never dropped silently: a failed flush keeps the queue and retries; only beyond `maxQueued`
 * waiting entries (a store down for long) are the oldest dropped, and each drop is counted and reported.
 *
 * @example
 * ```ts
 * const audit = new AuditLog(store);
 * audit.record({ who: key.id, action: "call_tool", collection: "crm", target: "fx__ping", outcome: "ok", durationMs: 3 });
 * await audit.close(); // writes what is queued
 * ```
 */
import { ToolsearchError } from "../errors.js";
import { requestIdNow } from "../ops/request-context.js";
import type { AuditEntry, Store } from "../store/types.js";

/** An entry as callers give it: `at` defaults to now. */
export type NewAuditEntry = Omit<AuditEntry, "at"> & { at?: string };

/** Writes one entry now (resolves once committed). Review decisions and other rare events use this. */
export async function recordAudit(store: Pick<Store, "appendAudit">, entry: NewAuditEntry): Promise<void> {
  await store.appendAudit([stamped(entry)]);
}

/** Options of `AuditLog`. */
export interface AuditLogOptions {
  /** Longest an entry waits before being written (default 200 ms). */
  flushMs?: number;
  /** Entries written at once when this many wait (default 500). */
  maxBatch?: number;
  /** Most entries kept waiting while the store fails; beyond, the oldest are dropped and reported (default 100 000). */
  maxQueued?: number;
  /** `--audit-arguments`: keep each call's arguments (default: only their size). */
  keepArguments?: boolean;
  /** Where failures and drops are reported (default: stderr). */
  log?: (line: string) => void;
}

export class AuditLog {
  private queue: AuditEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private failing = false;
  /** Entries dropped because the queue overflowed while the store was failing. */
  dropped = 0;
  private readonly options: Required<Omit<AuditLogOptions, "log">> & { log: (line: string) => void };

  constructor(
    private readonly store: Pick<Store, "appendAudit">,
    options: AuditLogOptions = {},
  ) {
    this.options = {
      flushMs: options.flushMs ?? 200,
      maxBatch: options.maxBatch ?? 500,
      maxQueued: options.maxQueued ?? 100_000,
      keepArguments: options.keepArguments ?? false,
      log: options.log ?? ((line) => process.stderr.write(`${line}\n`)),
    };
  }

  /** Entries queued and not yet written. */
  get pending(): number {
    return this.queue.length;
  }

  /** Whether entries keep the call's arguments (`--audit-arguments`). */
  get keepsArguments(): boolean {
    return this.options.keepArguments;
  }

  /** Queues an entry (arguments are left out unless `keepArguments`); it is written within `flushMs`. */
  record(entry: NewAuditEntry): void {
    const { arguments: args, ...rest } = stamped(entry);
    this.queue.push(this.options.keepArguments && args !== undefined ? { ...rest, arguments: args } : rest);
    if (this.queue.length > this.options.maxQueued) {
      const over = this.queue.length - this.options.maxQueued;
      this.queue.splice(0, over);
      this.dropped += over;
      this.options.log(`toolsearch: audit log: the store has failed for too long; ${this.dropped} oldest entries dropped so far`);
    }
    // A failed write is logged and retried by `flush` itself; nothing may reject unhandled here (it would end the process).
    if (this.queue.length >= this.options.maxBatch) void this.flush().catch(() => undefined);
    else this.timer ??= setTimeout(() => void this.flush().catch(() => undefined), this.options.flushMs).unref();
  }

  /** Writes every queued entry; resolves when they are committed (or rejects, keeping them queued, when the store fails). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => undefined);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.flushing = this.store.appendAudit(batch).then(
      () => {
        if (this.failing) this.options.log(`toolsearch: audit log: writing again (${batch.length} entries caught up)`);
        this.failing = false;
      },
      (error: unknown) => {
        // Back in front of the queue, in order; the next record or flush retries.
        this.queue = [...batch, ...this.queue];
        if (!this.failing) this.options.log(`toolsearch: audit log: writing failed, entries kept and retried: ${error instanceof Error ? error.message : String(error)}`);
        this.failing = true;
        this.timer ??= setTimeout(() => void this.flush().catch(() => undefined), Math.max(this.options.flushMs, 1000)).unref();
        throw error;
      },
    );
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  /** Writes what is queued; the log keeps working (a later `record` is written as usual). */
  async close(): Promise<void> {
    await this.flush();
  }
}

/** Deletes audit entries older than `keepDays` now and then every hour, until the returned function is called. */
export function startAuditPruning(store: Pick<Store, "pruneAudit">, keepDays: number, log?: (line: string) => void): () => void {
  const round = () =>
    void store.pruneAudit(new Date(Date.now() - keepDays * 86_400_000).toISOString()).catch((error: unknown) => {
      log?.(`toolsearch: pruning the audit log failed (will retry): ${error instanceof Error ? error.message : String(error)}`);
    });
  round();
  const timer = setInterval(round, 3_600_000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Reads `--since`: an ISO 8601 time, or an age such as `30m`, `12h`, `7d` (before `now`). Throws `invalid_option`.
 */
export function parseSince(value: string, now = Date.now()): string {
  const age = /^(\d+)([smhd])$/.exec(value);
  if (age) return new Date(now - Number(age[1]) * { s: 1e3, m: 6e4, h: 3.6e6, d: 8.64e7 }[age[2] as "s"]).toISOString();
  const time = Date.parse(value);
  if (Number.isNaN(time) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    throw new ToolsearchError("invalid_option", `--since takes an ISO 8601 time (2026-01-31 or 2026-01-31T12:00:00Z) or an age such as 30m, 12h, 7d (got ${JSON.stringify(value)})`);
  }
  return new Date(time).toISOString();
}

/** With its time, and the id of the request it is part of, if any (src/ops/request-context.ts). */
function stamped(entry: NewAuditEntry): AuditEntry {
  const requestId = entry.requestId ?? requestIdNow();
  return { ...entry, at: entry.at ?? new Date().toISOString(), ...(requestId === undefined ? {} : { requestId }) };
}
