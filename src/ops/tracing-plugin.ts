/**
 * A server span per HTTP request (SPEC §18), continuing the caller's W3C `traceparent` when there is one: named
 * `METHOD /route/pattern` (never the raw URL), with the status, ended when the answer is sent or the client goes.
 * Each route's handler runs inside that span, so the search, store and upstream spans it causes are its children and
 * `traceparent` goes on to HTTP upstreams (src/ops/tracing.ts). Registered only when tracing is on, before the routes.
 */
import { type Context, context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import fp from "fastify-plugin";
import { tracer } from "./tracing.js";

const spans = new WeakMap<FastifyRequest, { span: Span; context: Context }>();

/** Reads `traceparent` and `tracestate` from fastify's parsed headers. */
const headerGetter = {
  keys: (carrier: FastifyRequest["headers"]) => Object.keys(carrier),
  get: (carrier: FastifyRequest["headers"], key: string) => carrier[key],
};

export const tracingPlugin = fp(async (app: FastifyInstance) => {
  app.addHook("onRequest", async (request) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers, headerGetter);
    const route = request.routeOptions.url ?? "unmatched";
    const span = tracer().startSpan(`${request.method} ${route}`, {
      kind: SpanKind.SERVER,
      attributes: { "http.request.method": request.method, "http.route": route, "toolsearch.request_id": request.id },
    }, parent);
    spans.set(request, { span, context: trace.setSpan(parent, span) });
  });
  /** The request's span, forgotten: it is about to end. */
  const take = (request: FastifyRequest): Span | undefined => {
    const span = spans.get(request)?.span;
    spans.delete(request);
    return span;
  };
  app.addHook("onResponse", async (request, reply) => {
    const span = take(request);
    if (!span) return;
    span.setAttribute("http.response.status_code", reply.statusCode);
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  // The client went away before an answer: no onResponse follows, so the span ends here.
  app.addHook("onRequestAbort", async (request) => {
    const span = take(request);
    if (!span) return;
    span.setAttribute("toolsearch.aborted", true);
    span.end();
  });
  app.addHook("onRoute", (route: RouteOptions) => {
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const traced = spans.get(request);
      return traced ? context.with(traced.context, () => handler.call(this, request, reply)) : handler.call(this, request, reply);
    };
  });
}, { name: "toolsearch-tracing" });
