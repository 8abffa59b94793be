/**
 * The console's one door to the service: REST calls of SPEC §9 with the key kept in session storage (typed once per
 * browser session, gone when the tab closes). Errors arrive as `ApiError` with the service's stable code.
 */
const KEY = "toolsearch.key";

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  setKey: (key: string) => sessionStorage.setItem(KEY, key),
  clear: () => sessionStorage.removeItem(KEY),
};

/** Calls the API; a JSON body is sent as JSON. Throws `ApiError` for any non-2xx answer. */
export async function api<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = {};
  const key = session.key();
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new ApiError(0, "network", `The service did not answer (${(error as Error).message}).`);
  }
  const text = await response.text();
  const json = text ? safeJson(text) : undefined;
  if (!response.ok) {
    const e = (json as { error?: { code?: string; message?: string } } | undefined)?.error;
    throw new ApiError(response.status, e?.code ?? `http_${response.status}`, e?.message ?? `${response.status} ${response.statusText}`);
  }
  return json as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A collection as `GET /v1/collections` lists it. */
export interface CollectionSummary {
  name: string;
  kind: "tools" | "docs" | "mcp";
  size: number;
  updated_at: string;
  /** Whether the replica that answered holds its index in memory (an idle one loads on its next search). */
  loaded?: boolean;
}

/** A search hit: tools have `name` and `description`, documents `id`, `title` and `snippet`. */
export interface Hit {
  name?: string;
  id?: string;
  title?: string;
  score: number;
  description?: string;
  snippet?: string;
  category?: string;
}

export const TOOL_ENGINES = ["bm25", "regex", "semantic", "hybrid"];
export const DOC_ENGINES = ["bm25", "semantic", "hybrid"];

export function enginesOf(kind: CollectionSummary["kind"]): string[] {
  return kind === "docs" ? DOC_ENGINES : TOOL_ENGINES;
}

/** The REST path of one item of a collection. */
export function itemPath(c: CollectionSummary, id: string): string {
  return `/v1/collections/${encodeURIComponent(c.name)}/${c.kind === "docs" ? "documents" : "tools"}/${encodeURIComponent(id)}`;
}

/** A time as "2026-12-03 10:12" in the reader's zone. */
export function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}
