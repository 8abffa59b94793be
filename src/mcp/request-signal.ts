/**
 * A `fetch` that gives each request its own AbortSignal, bridged from the one the caller passes.
 *
 * Why: the MCP SDK's `StreamableHTTPClientTransport` passes one connection-wide signal to every fetch, and Node's
 * fetch adds an abort listener to the signal it is given that goes away only when the request is garbage collected.
 * Over a long connection the listeners pile up (MaxListenersExceededWarning, ~2,000 on one signal and RSS doubling in
 * two minutes of calls). Here the shared signal gets one listener in all, which aborts the requests in flight; a
 * request leaves that set as soon as it settles: when its response body has been read to the end, failed or was
 * cancelled (an SSE stream stays abortable while it flows), or at once when there is no body or the request fails.
 * (One listener per request in flight was the first version: 16 calls in flight on one upstream then passed Node's
 * limit of 10 listeners and printed MaxListenersExceededWarning, though nothing leaked.)
 *
 * @example
 * new StreamableHTTPClientTransport(url, { fetch: perRequestSignalFetch() });
 */

/** The shape of `fetch` the SDK's transports accept. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The requests in flight under each shared signal; the signal's one listener aborts them all. */
const inFlight = new WeakMap<AbortSignal, Set<AbortController>>();

/** Wraps `base` (default: the global fetch) so that the caller's signal never collects per-request listeners. */
export function perRequestSignalFetch(base: FetchLike = (url, init) => fetch(url, init)): FetchLike {
  return async (url, init) => {
    const shared = init?.signal;
    if (!shared) return base(url, init);
    if (shared.aborted) return base(url, { ...init, signal: shared });
    const own = new AbortController();
    const requests = requestsUnder(shared);
    requests.add(own);
    const settle = () => requests.delete(own);
    let response: Response;
    try {
      response = await base(url, { ...init, signal: own.signal });
    } catch (error) {
      settle();
      throw error;
    }
    if (!response.body) {
      settle();
      return response;
    }
    return withBodySettled(response, settle);
  };
}

/** The set of requests in flight under `shared`, made (with the signal's one listener) on first use. */
function requestsUnder(shared: AbortSignal): Set<AbortController> {
  let requests = inFlight.get(shared);
  if (!requests) {
    const created = new Set<AbortController>();
    shared.addEventListener("abort", () => {
      for (const request of created) request.abort(shared.reason);
      created.clear();
    }, { once: true });
    inFlight.set(shared, created);
    requests = created;
  }
  return requests;
}

/** The same response, whose body calls `settle` once it ends, fails or is cancelled. */
function withBodySettled(response: Response, settle: () => void): Response {
  const reader = response.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          settle();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        settle();
        controller.error(error);
      }
    },
    async cancel(reason) {
      settle();
      await reader.cancel(reason);
    },
  });
  const wrapped = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  // The SDK names a redirect's origin from `url`, which a constructed Response leaves empty.
  Object.defineProperty(wrapped, "url", { value: response.url });
  return wrapped;
}
