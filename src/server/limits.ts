/** The service's default limits, in a module of their own so that the CLI can show them without loading fastify. */

/** Largest request body (16 MB). */
export const DEFAULT_MAX_BODY = 16 * 1024 * 1024;
/** Requests per key per minute. */
export const DEFAULT_RATE_LIMIT = { max: 6000, windowMs: 60_000 };
/** Most time to receive a request, and to answer a search or lint. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
