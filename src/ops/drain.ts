/**
 * Graceful drain on SIGTERM or SIGINT (SPEC §18), in the order a load balancer needs:
 * 1. at once: `/readyz` answers 503 (`draining`), so the balancer stops sending new requests here;
 * 2. for `drainMs` (`--drain-seconds`, default 5): everything is still served, as the balancer takes a moment to notice;
 * 3. then new requests get 503 `not_ready` with `Connection: close`, and the requests in flight finish (MCP calls
 *    included; a GET holding an event stream open is not work and does not count);
 * 4. `close` stops the server (MCP sessions end), and `cleanup` saves snapshots, writes the audit queue, closes the
 *    store; the process then exits 0.
 * The whole takes at most `shutdownTimeoutMs` (`--shutdown-timeout`, default 30 s): what is still in flight a little
 * before the end is cut so that the cleanup has its share of the time, and past the end the process exits 1. A second
 * signal exits at once (128 + the signal's number).
 *
 * @example
 * const drain = new Drain({ drainMs: 5000, shutdownTimeoutMs: 30_000, log: note });
 * await app.register(drain.plugin);   // buildService({ draining: () => drain.draining, … })
 * await drain.signalled();
 * await drain.shutdown({ close: () => app.close(), cut: () => app.server.closeAllConnections(), cleanup });
 */
import { constants } from "node:os";
import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { within } from "../server/readiness.js";

export const DEFAULT_DRAIN_SECONDS = 5;
export const DEFAULT_SHUTDOWN_TIMEOUT_SECONDS = 30;

/** Options of `Drain`. */
export interface DrainOptions {
  drainMs: number;
  shutdownTimeoutMs: number;
  log: (line: string) => void;
  /** Ends the process (default `process.exit`); before it, `beforeExit` runs (flush the log). */
  exit?: (code: number) => void;
  beforeExit?: () => void;
}

/** The steps of a shutdown, run by `Drain.shutdown`. */
export interface ShutdownSteps {
  /** Stops the server once nothing is in flight (or the time is up). */
  close(): Promise<void>;
  /** Ends every connection at once (the time is up). */
  cut(): void;
  /** Snapshots, audit queue, store: what must be written before the exit. */
  cleanup(): Promise<void>;
}

export class Drain {
  /** `/readyz` answers 503 from the first signal on. */
  draining = false;
  /** New requests are refused (after the drain window). */
  private closing = false;
  private inFlight = 0;
  private idle: Array<() => void> = [];
  private readonly options: Required<DrainOptions>;

  constructor(options: DrainOptions) {
    this.options = { exit: (code) => process.exit(code), beforeExit: () => {}, ...options };
  }

  /** Counts the work in flight and refuses new requests once closing. Register it before the routes. */
  get plugin() {
    return fp(async (app: FastifyInstance) => {
      app.addHook("onRequest", async (request, reply) => {
        if (this.closing) {
          reply.header("connection", "close");
          return reply.code(503).send({ error: { code: "not_ready", message: "Shutting down: this replica no longer takes requests; send it to another one." } });
        }
        if (!isStandingStream(request)) {
          this.inFlight++;
          // `close` on the raw response: fires once, whether the answer was sent or the client went away.
          reply.raw.once("close", () => this.done());
        }
      });
    }, { name: "toolsearch-drain" });
  }

  /** Requests in flight (standing event streams aside). */
  get pending(): number {
    return this.inFlight;
  }

  private done(): void {
    this.inFlight--;
    if (this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  /** Resolves with the first SIGTERM or SIGINT, after which `/readyz` says 503; a second one exits at once. */
  signalled(): Promise<NodeJS.Signals> {
    return new Promise((resolve) => {
      const onSignal = (signal: NodeJS.Signals) => {
        if (this.draining) {
          this.options.log(`${signal} again: exiting at once`);
          this.options.beforeExit();
          return this.options.exit(128 + (constants.signals[signal] ?? 15));
        }
        this.draining = true;
        resolve(signal);
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
    });
  }

  /** Runs the drain window, waits for the work in flight, closes and cleans up, all within the shutdown timeout. */
  async shutdown(steps: ShutdownSteps): Promise<void> {
    const { drainMs, shutdownTimeoutMs, log } = this.options;
    const started = Date.now();
    const deadline = setTimeout(() => {
      log(`shutdown took longer than --shutdown-timeout (${shutdownTimeoutMs / 1000} s): exiting now`);
      this.options.beforeExit();
      this.options.exit(1);
    }, shutdownTimeoutMs);
    deadline.unref();
    // The cleanup's share of the time: work still in flight past this point is cut.
    const workEnds = started + Math.max(drainMs, shutdownTimeoutMs - Math.min(5000, shutdownTimeoutMs / 5));
    try {
      log(`draining: /readyz answers 503; serving for ${drainMs / 1000} s more, then finishing the ${this.inFlight} request(s) in flight`);
      await sleep(Math.min(drainMs, workEnds - Date.now()));
      this.closing = true;
      if (!(await this.settled(workEnds - Date.now()))) {
        log(`${this.inFlight} request(s) still in flight at the end of the shutdown time: cutting them`);
        steps.cut();
      }
      const closed = steps.close();
      if (!(await finishes(closed, workEnds - Date.now()))) {
        steps.cut();
        await finishes(closed, 1000);
      }
      await steps.cleanup();
    } finally {
      clearTimeout(deadline);
    }
  }

  /** Whether the work in flight ended within `ms`. */
  private async settled(ms: number): Promise<boolean> {
    if (this.inFlight === 0) return true;
    return finishes(new Promise<void>((resolve) => this.idle.push(resolve)), ms);
  }
}

/** A GET that asks for an event stream (an MCP session's standing stream) lasts as long as the session: not work. */
function isStandingStream(request: FastifyRequest): boolean {
  return request.method === "GET" && String(request.headers.accept ?? "").includes("text/event-stream");
}

async function finishes(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return (await within(promise.then(() => true), Math.max(0, ms))) === true;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
