/**
 * The id of the request being handled, wherever its work goes (an MCP tool call, an audit entry): set around each
 * route's handler by src/ops/request-id.ts, read with `requestIdNow()`. Kept apart from the fastify plugin so that
 * modules outside the server (the audit log) can read it without loading fastify.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const current = new AsyncLocalStorage<string>();

/** The id of the request being handled, or undefined outside one. */
export function requestIdNow(): string | undefined {
  return current.getStore();
}

/** Runs `work` as part of the request `id`. */
export function runInRequest<T>(id: string, work: () => T): T {
  return current.run(id, work);
}
