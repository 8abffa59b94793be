/**
 * Credential-bearing headers sent through a real app whose hooks log them (as a future route, a plugin or an
 * operator's serializer might), so a test can grep the captured log lines for the values. Each header's value is
 * unique, so a leak names the header.
 */
import assert from "node:assert/strict";
import type { FastifyInstance } from "fastify";

/** One secret value per header that carries a credential in this product. */
export const SECRET_HEADER_VALUES: Record<string, string> = {
  authorization: "Bearer ts_leak-authorization-41f0",
  "proxy-authorization": "Basic bGVhay1wcm94eS1hdXRoLTdhMmM=",
  cookie: "session=leak-cookie-9d3e",
  "x-api-key": "leak-x-api-key-55b1",
  "set-cookie": "session=leak-set-cookie-c8a4; HttpOnly",
};

/** Adds hooks that log the request's and the reply's headers (call before the app's first request). */
export function logHeadersOnEveryRequest(app: FastifyInstance): void {
  app.addHook("onSend", async (_request, reply, payload) => {
    reply.header("set-cookie", SECRET_HEADER_VALUES["set-cookie"]);
    return payload;
  });
  app.addHook("onResponse", async (request, reply) => {
    request.log.info({ headers: request.headers }, "request headers");
    request.log.info({ request: { headers: request.headers }, reply: { headers: reply.getHeaders() } }, "both");
  });
}

/** Sends every secret header (and an answer that sets a cookie) through `app`. */
export async function sendSecretHeaders(app: FastifyInstance, url = "/healthz"): Promise<void> {
  const { "set-cookie": _set, ...sent } = SECRET_HEADER_VALUES;
  await app.inject({ method: "GET", url, headers: sent });
}

/** Fails naming any secret value found in `log`; checks the hooks did log each header (redacted). */
export function assertNoSecretHeaders(log: string): void {
  for (const [name, value] of Object.entries(SECRET_HEADER_VALUES)) {
    const secret = value.replace(/^(Bearer|Basic) /, "").replace(/;.*/, "");
    assert.ok(!log.includes(secret), `the ${name} header reached the log: ${secret}`);
    assert.match(log, new RegExp(`"${name}":"\\[Redacted\\]"`), `the ${name} header was logged (redacted)`);
  }
}
