/**
 * Readiness of one replica, for a load balancer's health check (`/readyz`).
 *
 * A replica is ready once it has loaded its preload list (every collection by default; `serve` loads the others on
 * first use) and applied every change the store has committed. When it
 * is behind (it just reconnected, or another replica wrote a moment ago) it tries to catch up for a short while
 * before answering, so a busy fleet does not flap. When the store cannot be reached, a replica that was caught up
 * stays ready: it answers searches from memory, which is the point of keeping indexes there, and pulling every
 * replica out of the balancer because the database restarts would turn a write outage into a full one. Writes
 * answer 503 `store_unavailable` meanwhile.
 *
 * @example
 * const state = await readiness(collections);
 * if (!state.ready) reply.code(503).send({ error: { code: state.code, message: state.message } });
 */
import type { ErrorCode } from "../errors.js";
import type { Store } from "../store/types.js";

/** What `readiness` needs of the in-memory side (src/server/collections.ts). */
export interface Follower {
  /** The collections to load at start have been loaded. */
  readonly ready: boolean;
  /** The last change applied. */
  readonly appliedSeq: number;
  /** Applies every change committed so far. */
  sync(): Promise<void>;
  readonly store: Pick<Store, "latestSeq">;
}

/** Options of `readiness`. */
export interface ReadinessOptions {
  /** How long a replica that is behind may take to catch up before it answers not ready (default 1000 ms). */
  catchUpMs?: number;
  /** How long to wait for the store's answer before counting it unreachable (default 1000 ms). */
  storeTimeoutMs?: number;
}

export type Readiness =
  | { ready: true; seq: number; store: "ok" | "unavailable" }
  | { ready: false; code: ErrorCode; message: string };

/** `promise`, or "timeout" after `ms`; the timer is cleared either way. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<"timeout">((resolve) => (timer = setTimeout(resolve, ms, "timeout")))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether this replica may take traffic; see the module comment. */
export async function readiness(follower: Follower, options: ReadinessOptions = {}): Promise<Readiness> {
  if (!follower.ready) return { ready: false, code: "not_ready", message: "Still loading collections from the store." };
  let latest: number | "timeout";
  try {
    latest = await within(follower.store.latestSeq(), options.storeTimeoutMs ?? 1000);
  } catch {
    latest = "timeout";
  }
  if (latest === "timeout") return { ready: true, seq: follower.appliedSeq, store: "unavailable" };
  if (follower.appliedSeq < latest) await within(follower.sync(), options.catchUpMs ?? 1000);
  if (follower.appliedSeq < latest) {
    return { ready: false, code: "not_ready", message: `Catching up with the store: applied change ${follower.appliedSeq} of ${latest}.` };
  }
  return { ready: true, seq: follower.appliedSeq, store: "ok" };
}
