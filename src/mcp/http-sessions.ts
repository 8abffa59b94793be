/**
 * The open HTTP sessions of the gateway: when each was last used, closing those idle for too long (a sweep on a
 * timer, and again before a new session would be refused), and a cap on how many may be open. The cap is what keeps
 * memory flat when clients open sessions and never close them; the idle expiry is what frees the places.
 *
 * @example
 * ```ts
 * const table = new SessionTable({ idleMs: 60_000, max: 100, close: (t) => t.close() });
 * const full = await table.refusal(); // undefined while there is room
 * ```
 */

/** Default idle time before a session is closed (`--session-idle`, SPEC §11): 30 minutes. */
export const DEFAULT_SESSION_IDLE_MS = 1_800_000;
/** Default most sessions open at once (`--max-sessions`, SPEC §11). */
export const DEFAULT_MAX_SESSIONS = 1000;

/** Limits of the session table. */
export interface SessionTableOptions<T> {
  /** Close a session after this long without a request; 0 = never. */
  idleMs: number;
  /** Most sessions open at once. */
  max: number;
  /** Closes one session (its transport); the owner's `onclose` then calls `delete`. */
  close: (session: T) => Promise<void>;
  /** The clock (tests pass their own). */
  now?: () => number;
  /** The endpoint the refusal tells clients to send DELETE to (default `/mcp`). */
  endpoint?: string;
}

/** Why a new session is refused, for the HTTP 503 answer. */
export interface Refusal {
  message: string;
  retryAfterSeconds: number;
}

/** Longest pause between two sweeps for idle sessions. */
const MAX_SWEEP_MS = 60_000;

export class SessionTable<T> {
  private readonly entries = new Map<string, { session: T; lastUsed: number }>();
  private readonly options: SessionTableOptions<T>;
  private readonly now: () => number;
  private readonly sweeper?: NodeJS.Timeout;

  constructor(options: SessionTableOptions<T>) {
    this.options = options;
    this.now = options.now ?? Date.now;
    if (options.idleMs > 0) {
      this.sweeper = setInterval(() => void this.closeIdle(), Math.max(1, Math.min(MAX_SWEEP_MS, Math.floor(options.idleMs / 2))));
      this.sweeper.unref();
    }
  }

  get size(): number {
    return this.entries.size;
  }

  add(id: string, session: T): void {
    this.entries.set(id, { session, lastUsed: this.now() });
  }

  /** The session with this id, marked as used now; undefined when unknown or already expired. */
  touch(id: string): T | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (this.expired(entry.lastUsed)) {
      void this.closeOne(id, entry.session);
      return undefined;
    }
    entry.lastUsed = this.now();
    return entry.session;
  }

  /** The session with this id, without marking it used (undefined when unknown). */
  peek(id: string): T | undefined {
    return this.entries.get(id)?.session;
  }

  delete(id: string): void {
    this.entries.delete(id);
  }

  /** Closes every session idle for longer than `idleMs`; returns how many. */
  async closeIdle(): Promise<number> {
    const idle = [...this.entries].filter(([, entry]) => this.expired(entry.lastUsed));
    await Promise.all(idle.map(([id, entry]) => this.closeOne(id, entry.session)));
    return idle.length;
  }

  /** Undefined when a new session fits (after closing idle ones if the table is full); otherwise why not. */
  async refusal(): Promise<Refusal | undefined> {
    if (this.entries.size < this.options.max) return undefined;
    await this.closeIdle();
    if (this.entries.size < this.options.max) return undefined;
    const oldest = Math.min(...[...this.entries.values()].map((e) => e.lastUsed));
    const idleSeconds = Math.round(this.options.idleMs / 1000);
    const retryAfterSeconds = this.options.idleMs > 0 ? Math.max(1, Math.ceil((oldest + this.options.idleMs - this.now()) / 1000)) : 60;
    const expiry = this.options.idleMs > 0 ? ` Sessions idle for ${idleSeconds} s are closed; the next place frees in about ${retryAfterSeconds} s.` : "";
    return {
      message: `Too many open MCP sessions: ${this.entries.size} of at most ${this.options.max} (--max-sessions). Close sessions you no longer use (HTTP DELETE ${this.options.endpoint ?? "/mcp"} with their Mcp-Session-Id) or reuse one.${expiry}`,
      retryAfterSeconds,
    };
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.entries].map(([id, entry]) => this.closeOne(id, entry.session)));
  }

  private expired(lastUsed: number): boolean {
    return this.options.idleMs > 0 && this.now() - lastUsed > this.options.idleMs;
  }

  private async closeOne(id: string, session: T): Promise<void> {
    this.entries.delete(id);
    await this.options.close(session).catch(() => undefined);
  }
}
