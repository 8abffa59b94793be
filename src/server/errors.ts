/**
 * Errors over HTTP: the one mapping from `ToolsearchError.code` to a status, and the fastify error handler that
 * answers every failure as `{"error":{"code","message","details?"}}`. A client's mistake is never a 5xx; a fault of
 * ours is a 500 `internal_error` whose details stay in the log, never in the answer.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { type ErrorCode, ToolsearchError } from "../errors.js";

/** HTTP status of every error code (SPEC §9, §10). */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  file_unreadable: 400,
  file_parse: 400,
  catalog_invalid: 400,
  curation_invalid: 400,
  documents_invalid: 400,
  queries_invalid: 400,
  pattern_too_long: 400,
  invalid_pattern: 400,
  unknown_tool: 404,
  unknown_document: 404,
  unknown_engine: 400,
  invalid_option: 400,
  tool_invalid: 400,
  lint_failed: 400,
  request_invalid: 400,
  config_invalid: 400,
  invalid_arguments: 400,
  upstream_unavailable: 503,
  upstream_timeout: 504,
  embedding_failed: 503,
  unknown_collection: 404,
  unauthorized: 401,
  forbidden: 403,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  rate_limited: 429,
  not_ready: 503,
  store_unavailable: 503,
  request_timeout: 503,
  internal_error: 500,
  openapi_invalid: 400,
  schema_too_large: 400,
  invalid_usage: 400,
  dependency_missing: 500,
  file_unwritable: 500,
  snapshot_invalid: 400,
  invalid_token: 401,
  secret_key_invalid: 500,
  login_required: 503,
};

/** The body of every error answer. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

/** JSON Schema of `ErrorBody`, for the OpenAPI document. */
export const errorBodySchema = {
  $id: "Error",
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string", description: "A stable code of SPEC §10" },
        message: { type: "string" },
        details: { type: "object", additionalProperties: true },
      },
    },
  },
} as const;

/** Converts anything thrown into the status and body we answer with. */
export function toErrorAnswer(error: unknown): { status: number; body: ErrorBody } {
  if (error instanceof ToolsearchError) {
    const details = { ...error.details, ...(error.problems.length ? { problems: error.problems } : {}) };
    const body: ErrorBody = { error: { code: error.code, message: error.message } };
    if (Object.keys(details).length) body.error.details = details;
    return { status: STATUS_BY_CODE[error.code], body };
  }
  const fastifyError = error as Partial<FastifyError> & { validation?: unknown[]; validationContext?: string };
  if (fastifyError.validation) {
    return answer("request_invalid", `${fastifyError.message ?? "invalid request"}`, { problems: fastifyError.validation });
  }
  if (fastifyError.code === "FST_ERR_CTP_BODY_TOO_LARGE") return answer("payload_too_large", "The request body is larger than the service accepts (--max-body).");
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    // fastify's own refusals (bad JSON, unsupported content type …) keep their status and say what was wrong.
    return { status, body: { error: { code: "request_invalid", message: fastifyError.message ?? "invalid request" } } };
  }
  return answer("internal_error", "Internal error: the service failed to answer; the request may be retried. The server log has the details.");
}

function answer(code: ErrorCode, message: string, details?: Record<string, unknown>): { status: number; body: ErrorBody } {
  return { status: STATUS_BY_CODE[code], body: { error: { code, message, ...(details ? { details } : {}) } } };
}

/** The error handler and the 404 answer for unknown routes. */
export const errorsPlugin = fp(async (app: FastifyInstance) => {
  app.addSchema(errorBodySchema);
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body } = toErrorAnswer(error);
    if (status >= 500) request.log.error({ err: error }, "request failed");
    const retryAfter = (error as { details?: { retry_after_s?: number } }).details?.retry_after_s;
    if (retryAfter !== undefined) reply.header("retry-after", String(retryAfter));
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) =>
    reply.code(404).send({ error: { code: "request_invalid", message: `No route ${request.method} ${request.url.split("?")[0]}; see /openapi.json for the routes.` } }),
  );
}, { name: "toolsearch-errors" });
