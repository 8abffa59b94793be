/**
 * Traces (SPEC §18), with the official OpenTelemetry packages and their standard `OTEL_*` variables.
 *
 * Off unless `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (and `OTEL_SDK_DISABLED` is
 * not `true`); then spans go over OTLP/HTTP, as protobuf (the default) or JSON (`OTEL_EXPORTER_OTLP_PROTOCOL` or
 * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` = `http/protobuf` | `http/json`). The SDK is imported only then.
 *
 * What the code records goes through the OpenTelemetry API, which does nothing until a provider is registered:
 * `inSpan` makes a child span of the active one (an HTTP request's span, src/ops/tracing-plugin.ts), never a root of
 * its own, so background work (change following, snapshots) does not flood the collector; `withTraceContext` sends
 * the active context on to HTTP upstreams as a W3C `traceparent` header.
 *
 * @example
 * const tracing = await startTracing({ traceQueries: false });
 * …
 * await tracing?.shutdown(); // exports what is pending
 */
import { type Attributes, context, INVALID_SPAN_CONTEXT, propagation, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { ToolsearchError } from "../errors.js";
import type { FetchLike } from "../mcp/request-signal.js";

const TRACER = "toolsearch";

/** What the running process records; set by `startTracing`. */
const settings = { traceQueries: false };

/** Whether search spans carry the query text (`serve --trace-queries`; off by default: queries may hold personal data). */
export function tracesQueries(): boolean {
  return settings.traceQueries;
}

/** The tracer every span of toolsearch comes from (a no-op one while tracing is off). */
export function tracer() {
  return trace.getTracer(TRACER);
}

/** Options of `startTracing`. */
export interface TracingOptions {
  /** Record search queries' text on search spans. */
  traceQueries?: boolean;
  /** Service name when `OTEL_SERVICE_NAME` is unset (default `toolsearch`). */
  serviceName?: string;
  /** The environment to read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/** A running trace pipeline. */
export interface Tracing {
  /** `http/protobuf` or `http/json`. */
  protocol: string;
  /** Exports the spans still queued and stops. */
  shutdown(): Promise<void>;
}

/** Whether the environment asks for traces (an OTLP endpoint is set and the SDK is not disabled). */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === "none") return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** The OTLP protocol the environment names; throws `invalid_option` for one we do not send. */
export function otlpProtocol(env: NodeJS.ProcessEnv = process.env): "http/protobuf" | "http/json" {
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const value = (env[variable] ?? "").trim() || "http/protobuf";
  if (value === "http/protobuf" || value === "http/json") return value;
  throw new ToolsearchError("invalid_option", `${variable}=${value} is not supported: toolsearch sends traces over OTLP/HTTP; set it to http/protobuf or http/json`);
}

/** Starts exporting traces when the environment asks for it (see the module comment); undefined when it does not. */
export async function startTracing(options: TracingOptions = {}): Promise<Tracing | undefined> {
  const env = options.env ?? process.env;
  settings.traceQueries = options.traceQueries ?? false;
  if (!tracingRequested(env)) return undefined;
  const protocol = otlpProtocol(env);
  const [{ NodeTracerProvider, BatchSpanProcessor }, { resourceFromAttributes }, exporterModule] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/resources"),
    protocol === "http/json" ? import("@opentelemetry/exporter-trace-otlp-http") : import("@opentelemetry/exporter-trace-otlp-proto"),
  ]);
  // Both exporters read the endpoint, headers, timeout and TLS files from the OTEL_EXPORTER_OTLP_* variables.
  const exporter = new exporterModule.OTLPTraceExporter();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || options.serviceName || "toolsearch" }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  // The AsyncLocalStorage context manager and the W3C trace-context propagator.
  provider.register();
  return {
    protocol,
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/**
 * Runs `work` inside a child span of the active span, ended when `work` settles (an error marks it failed). With no
 * active span (tracing off, or work outside a request) `work` runs with a span that records nothing.
 */
export async function inSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  const parent = context.active();
  if (!trace.getSpan(parent)?.isRecording()) return work(NOT_RECORDING);
  return tracer().startActiveSpan(name, { kind, attributes }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The span `inSpan` hands to work that is not traced: every call on it does nothing. */
const NOT_RECORDING = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * A span for one search, a child of the active one (undefined when not traced): engine, collection and, with
 * `--trace-queries` only, the query text. Synchronous, so a bm25 search keeps answering without a promise hop;
 * `endSearchSpan` records the result count and ends it.
 */
export function startSearchSpan(collection: string, engine: string, query: string): Span | undefined {
  if (!trace.getSpan(context.active())?.isRecording()) return undefined;
  const attributes: Attributes = { "toolsearch.collection": collection, "toolsearch.engine": engine };
  if (settings.traceQueries) attributes["toolsearch.query"] = query;
  return tracer().startSpan("search", { attributes });
}

export function endSearchSpan(span: Span | undefined, results: number | undefined): void {
  if (!span) return;
  if (results === undefined) span.setStatus({ code: SpanStatusCode.ERROR });
  else span.setAttribute("toolsearch.results", results);
  span.end();
}

/** A `fetch` that sends the active trace context on as `traceparent` (and `tracestate`) headers. */
export function withTraceContext(base: FetchLike = (url, init) => fetch(url, init)): FetchLike {
  return (url, init) => {
    const active = context.active();
    if (!trace.getSpan(active)?.isRecording()) return base(url, init);
    const headers = new Headers(init?.headers);
    propagation.inject(active, headers, { set: (carrier, key, value) => carrier.set(key, value) });
    return base(url, { ...init, headers });
  };
}

/**
 * The store with a span per call made inside a traced request (`store.<method>`); calls outside one run as they are.
 * Only methods that return a promise are wrapped.
 */
export function tracedStore<T extends object>(store: T, system: string): T {
  type Method = (...args: unknown[]) => unknown;
  // One wrapper per method, made on its first use rather than on every call.
  const wrappers = new Map<string, { method: Method; wrapper: Method }>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function" || typeof property !== "string") return value;
      const known = wrappers.get(property);
      if (known?.method === value) return known.wrapper;
      const wrapper = traced(target, property, value as Method);
      wrappers.set(property, { method: value as Method, wrapper });
      return wrapper;
    },
  });

  function traced(target: T, property: string, method: Method): Method {
    return function (this: unknown, ...args: unknown[]) {
      if (!trace.getSpan(context.active())?.isRecording()) return method.apply(target, args);
      return tracer().startActiveSpan(`store.${property}`, { kind: SpanKind.CLIENT, attributes: { "db.system.name": system, "db.operation.name": property } }, (span) => {
        let result: unknown;
        try {
          result = method.apply(target, args);
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
          throw error;
        }
        if (!(result instanceof Promise)) {
          span.end();
          return result;
        }
        return result.then(
          (resolved) => {
            span.end();
            return resolved;
          },
          (error: unknown) => {
            span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
            span.end();
            throw error;
          },
        );
      });
    };
  }
}

export { SpanKind };
