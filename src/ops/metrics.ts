/**
 * The metrics operators watch (SPEC §18), added to the service's registry beside its own (src/server/metrics.ts):
 * prom-client's default process, heap, GC and event-loop metrics; HTTP latency by route pattern, method and status;
 * replica lag (the store's head minus the change applied, in changes and in seconds); upstream call latency and
 * errors by server and outcome (from the `toolsearch:upstream-call` channel, src/ops/upstream-calls.ts); audit entries
 * dropped. `capByCollection` keeps per-collection series to `--metrics-collections N`.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { collectDefaultMetrics, Counter, Gauge, Histogram, type Registry } from "prom-client";
import { within } from "../server/readiness.js";
import type { Change, Unsubscribe } from "../store/types.js";
import { upstreamCalls, type UpstreamCallMessage } from "./upstream-calls.js";

/** The label value of the collections past the cap. */
export const OTHER_COLLECTIONS = "_other";

/** Default `--metrics-collections`: per-collection series for this many collections, the rest summed. */
export const DEFAULT_METRICS_COLLECTIONS = 100;

/** What replica lag is read from: the change applied, and the store's head and change feed. */
export interface LagSource {
  readonly appliedSeq: number;
  readonly store: { latestSeq(): Promise<number>; onChange(listener: (changes: Change[]) => void): Unsubscribe };
}

/** Options of `operatorMetrics`. */
export interface OperatorMetricsOptions {
  lag: LagSource;
  /** The audit log's count of entries dropped (undefined: no audit log). */
  auditDropped?: () => number;
}

/** The operator metrics of one registry; `close` stops following the store and the upstream channel. */
export interface OperatorMetrics {
  httpSeconds: Histogram<"route" | "method" | "status">;
  close(): void;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function operatorMetrics(registry: Registry, options: OperatorMetricsOptions): OperatorMetrics {
  collectDefaultMetrics({ register: registry });
  const httpSeconds = new Histogram({
    name: "toolsearch_http_request_duration_seconds",
    help: "Time to answer an HTTP request, by route pattern (never the raw URL), method and status",
    labelNames: ["route", "method", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const lag = new ReplicaLag(options.lag);
  new Gauge({
    name: "toolsearch_replica_lag_changes",
    help: "Changes the store has committed that this replica has not applied yet (store head minus applied)",
    registers: [registry],
    async collect() {
      this.set(await lag.changes());
    },
  });
  new Gauge({
    name: "toolsearch_replica_lag_seconds",
    help: "How long the oldest change this replica has not applied yet has been known to it (0 when caught up)",
    registers: [registry],
    async collect() {
      await lag.changes();
      this.set(lag.seconds());
    },
  });
  const upstreamSeconds = new Histogram({
    name: "toolsearch_upstream_call_duration_seconds",
    help: "Time of tools/call to an upstream MCP server, by server and outcome (ok, tool_error, timeout, unavailable, error)",
    labelNames: ["server", "outcome"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const upstreamErrors = new Counter({
    name: "toolsearch_upstream_call_errors_total",
    help: "tools/call to an upstream MCP server that did not end ok, by server and outcome",
    labelNames: ["server", "outcome"] as const,
    registers: [registry],
  });
  const onCall = (message: unknown) => {
    const call = message as UpstreamCallMessage;
    upstreamSeconds.observe({ server: call.server, outcome: call.outcome }, call.seconds);
    if (call.outcome !== "ok") upstreamErrors.inc({ server: call.server, outcome: call.outcome });
  };
  subscribe(upstreamCalls.name, onCall);
  const dropped = options.auditDropped;
  new Counter({
    name: "toolsearch_audit_dropped_total",
    help: "Audit entries dropped because the store failed for too long (each drop is also logged)",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(dropped?.() ?? 0);
    },
  });
  return {
    httpSeconds,
    close: () => {
      unsubscribe(upstreamCalls.name, onCall);
      lag.close();
    },
  };
}

/**
 * Replica lag: in changes, the store's head minus the change applied; in seconds, how long ago this replica first
 * knew of the oldest change it has not applied (announced by the change feed, or seen at a scrape when a
 * notification was missed). The store is asked for its head at most once per scrape and given one second.
 */
class ReplicaLag {
  /** Changes known and not yet applied: [seq, when first known], oldest first. */
  private pending: Array<[seq: number, at: number]> = [];
  private readonly stop: Unsubscribe;

  constructor(private readonly source: LagSource) {
    this.stop = source.store.onChange((changes) => {
      const last = changes.at(-1)?.seq;
      if (last !== undefined) this.known(last);
    });
  }

  private known(seq: number): void {
    if (seq > (this.pending.at(-1)?.[0] ?? this.source.appliedSeq)) this.pending.push([seq, Date.now()]);
  }

  async changes(): Promise<number> {
    let answer: number | "timeout";
    try {
      answer = await within(this.source.store.latestSeq(), 1000);
    } catch {
      answer = "timeout";
    }
    // The store is away: what is known is all there is to say.
    const head = answer === "timeout" ? (this.pending.at(-1)?.[0] ?? this.source.appliedSeq) : answer;
    this.known(head);
    return Math.max(0, head - this.source.appliedSeq);
  }

  seconds(): number {
    const applied = this.source.appliedSeq;
    while (this.pending.length && this.pending[0][0] <= applied) this.pending.shift();
    return this.pending.length ? (Date.now() - this.pending[0][1]) / 1000 : 0;
  }

  close(): void {
    this.stop();
  }
}

/**
 * Per-collection values kept to `cap` series: the `cap` largest by value under their own name, the others summed
 * under `_other`, so a thousand collections do not make a thousand series (a Prometheus server's cost).
 */
export function capByCollection(values: Array<[collection: string, value: number]>, cap: number): Array<[string, number]> {
  if (values.length <= cap) return values;
  const sorted = [...values].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const rest = sorted.slice(cap).reduce((sum, [, value]) => sum + value, 0);
  return [...sorted.slice(0, cap), [OTHER_COLLECTIONS, rest]];
}
