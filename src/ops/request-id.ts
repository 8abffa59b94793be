/**
 * Request ids (SPEC §18): every request gets one, so a failed call can be found in the logs and the audit log.
 *
 * The id is the caller's `X-Request-Id` when it is safe to repeat (1–128 characters of letters, digits and
 * `. _ : - / + = @`; anything else is ignored, never an error), else the trace id of a valid W3C `traceparent`, else a
 * fresh random UUID (unique across replicas, unlike fastify's per-process counter). It is echoed in the
 * `x-request-id` response header, added to every error body as `error.request_id`, carried by each log line of the
 * request (`requestId`) and by the audit entries the request causes (`requestIdNow()`, src/ops/request-context.ts).
 *
 * @example
 * Fastify({ genReqId: requestIdOf, requestIdLogLabel: "requestId" }); app.register(requestIdPlugin);
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import fp from "fastify-plugin";
import { runInRequest } from "./request-context.js";

export const REQUEST_ID_HEADER = "x-request-id";

/** What a caller's id may be made of: no spaces, quotes or control characters, so it is safe in logs and headers. */
const SAFE_ID = /^[A-Za-z0-9._:\-/+=@]{1,128}$/;
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The id of a request, from its headers (see the module comment). */
export function requestIdOf(request: Pick<IncomingMessage, "headers">): string {
  const given = request.headers[REQUEST_ID_HEADER];
  if (typeof given === "string" && SAFE_ID.test(given)) return given;
  const traceId = TRACEPARENT.exec(String(request.headers.traceparent ?? "").trim())?.[1];
  if (traceId && !/^0+$/.test(traceId)) return traceId;
  return randomUUID();
}

/** Adds `"request_id"` to an error body as fastify serialized it (`{"error":{…}}`), leaving any other body as it is. */
export function withRequestId(payload: string, id: string): string {
  return payload.startsWith('{"error":{') ? `{"error":{"request_id":${JSON.stringify(id)},${payload.slice(10)}` : payload;
}

/**
 * Echoes the id, adds it to error bodies, and runs each route's handler with it as `requestIdNow()`. Register it
 * before the routes (its `onRoute` hook wraps their handlers).
 */
export const requestIdPlugin = fp(async (app: FastifyInstance) => {
  app.addHook("onRequest", async (request, reply) => {
    // On the raw response: routes that write it themselves (the MCP endpoint) carry the header too.
    reply.raw.setHeader(REQUEST_ID_HEADER, request.id);
  });
  app.addHook("onSend", async (request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== "string") return payload;
    return withRequestId(payload, request.id);
  });
  app.addHook("onRoute", (route: RouteOptions) => {
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      return runInRequest(request.id, () => handler.call(this, request, reply));
    };
  });
}, { name: "toolsearch-request-id" });
