/**
 * Calling imported tools: `OpenApiClient` sends the HTTP request an operation describes and returns the status, the
 * headers worth knowing and the body, with a timeout and a cap on the response size. A 4xx/5xx answer is an error
 * whose message quotes the status and the body's own message, so a model can read what went wrong.
 * `handlers()` gives `runAgent`-ready handlers; the MCP gateway uses `callTool` (see mcp/openapi-upstream.ts).
 */
import { STATUS_CODES } from "node:http";
import { ToolsearchError } from "../errors.js";
import type { ToolHandler } from "../execution/run-tool.js";
import { type OpenApiAuth, placeAuth } from "./auth.js";
import { catalogFromOpenApi, type OpenApiCatalog, type OpenApiImportOptions, type OpenApiTool } from "./catalog.js";
import { buildRequest } from "./request.js";

/** Options of an `OpenApiClient`. */
export interface OpenApiClientOptions {
  /** Where requests go, overriding the document's `servers` (needed when those are relative or absent). */
  baseUrl?: string;
  /** Credentials, placed as the document's security schemes say (variables already filled: see `resolveAuth`). */
  auth?: OpenApiAuth;
  /** Milliseconds before a request is given up on (default 30 000). */
  timeoutMs?: number;
  /** Most bytes of a response body kept (default 1 MiB); the rest is cut and `truncated` set. */
  maxResponseBytes?: number;
  /** Headers sent with every request (e.g. a User-Agent). */
  headers?: Record<string, string>;
}

/** What one call returned. */
export interface HttpCallResult {
  status: number;
  /** True for 2xx/3xx. */
  ok: boolean;
  /** Headers a caller may act on (content type, location, retry-after, rate limits, ETag). */
  headers: Record<string, string>;
  /** Parsed JSON when the answer is JSON (and complete), else text. */
  body: unknown;
  /** Set when the body was longer than the cap and was cut. */
  truncated?: boolean;
}

export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
const HEADERS_OF_INTEREST = ["content-type", "location", "retry-after", "etag", "link", "x-request-id", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"];

export class OpenApiClient {
  private constructor(readonly catalog: OpenApiCatalog, private readonly options: OpenApiClientOptions) {}

  /**
   * Imports a document and gets ready to call its operations.
   *
   * @example
   * ```ts
   * const clinic = await OpenApiClient.fromSpec("clinic.yaml", { baseUrl: "http://127.0.0.1:8080/api/v1", auth: { bearer: token } });
   * const result = await clinic.call("getPatient", { patient_id: "p1" }); // { status: 200, ok: true, headers, body }
   * ```
   */
  static async fromSpec(spec: string | object, options: OpenApiClientOptions & Omit<OpenApiImportOptions, "baseUrl"> = {}): Promise<OpenApiClient> {
    const catalog = await catalogFromOpenApi(spec, options);
    return new OpenApiClient(catalog, options);
  }

  /** Wraps a catalog imported already. */
  static fromCatalog(catalog: OpenApiCatalog, options: OpenApiClientOptions = {}): OpenApiClient {
    return new OpenApiClient(catalog, options);
  }

  /** The imported tools (a catalog: `await ToolIndex.fromTools(client.tools)`). */
  get tools(): OpenApiTool[] {
    return this.catalog.tools;
  }

  /** Sends one operation's request. Throws `unknown_tool`/`config_invalid` before sending; answers any status. */
  async call(name: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<HttpCallResult> {
    const plan = this.catalog.plans.get(name);
    if (!plan) throw new ToolsearchError("unknown_tool", `Unknown tool ${JSON.stringify(name)}: ${this.catalog.source} has no such operation.`);
    const server = this.serverFor(plan.server);
    const auth = placeAuth(this.options.auth, plan.security, this.catalog.securitySchemes);
    const request = buildRequest(plan, input, server, auth);
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await fetch(request.url, {
        method: request.method, headers: { ...this.options.headers, ...request.headers }, body: request.body,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (timeout.aborted) throw new ToolsearchError("upstream_timeout", `${plan.method} ${plan.path} did not answer within ${timeoutMs} ms`);
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
      throw new ToolsearchError("upstream_unavailable", `${plan.method} ${plan.path}: cannot reach ${new URL(request.url).origin} (${cause})`);
    }
    return readResponse(response, this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
  }

  /**
   * Handlers for `runAgent`/`runTool`, one per tool: they return `{status, headers, body}` and throw for 4xx/5xx, so
   * the model gets an error result that quotes the status and the API's message.
   */
  handlers(): Record<string, ToolHandler> {
    return Object.fromEntries(this.tools.map((tool) => [tool.name, async (input: Record<string, unknown>, context: { signal: AbortSignal }) => {
      const result = await this.call(tool.name, input, context.signal);
      if (!result.ok) throw new Error(httpErrorMessage(result));
      return result;
    }]));
  }

  private serverFor(operationServer: string | undefined): string {
    const chosen = this.options.baseUrl ?? (operationServer && URL.canParse(operationServer) ? operationServer : this.catalog.serverUrl);
    if (!chosen || !URL.canParse(chosen)) {
      const found = chosen ? `its server URL ${JSON.stringify(chosen)} is not absolute` : "it names no server";
      throw new ToolsearchError("config_invalid", `${this.catalog.source}: ${found}; give a base URL (baseUrl in the configuration, --base-url on the command line)`);
    }
    return chosen;
  }
}

/** Reads at most `maxBytes` of the body; JSON is parsed when complete. */
async function readResponse(response: Response, maxBytes: number): Promise<HttpCallResult> {
  const headers: Record<string, string> = {};
  for (const name of HEADERS_OF_INTEREST) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const { text, truncated } = await readCapped(response, maxBytes);
  let body: unknown = text;
  if (!truncated && /json/i.test(headers["content-type"] ?? "") && text.trim()) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, ok: response.status < 400, headers, body, ...(truncated ? { truncated } : {}) };
}

async function readCapped(response: Response, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: "", truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { text: Buffer.concat(chunks).toString("utf8"), truncated };
}

/** "HTTP 404 Not Found: patient p9 does not exist" — the status and the API's own message, for an error result. */
export function httpErrorMessage(result: HttpCallResult): string {
  const message = bodyMessage(result.body);
  return `HTTP ${result.status}${STATUS_CODES[result.status] ? ` ${STATUS_CODES[result.status]}` : ""}${message ? `: ${message}` : ""}`;
}

function bodyMessage(body: unknown): string {
  if (typeof body === "string") return body.replace(/\s+/g, " ").trim().slice(0, 500);
  if (typeof body !== "object" || body === null) return body === undefined ? "" : String(body);
  const record = body as Record<string, unknown>;
  for (const key of ["message", "error_description", "detail", "title", "error"]) {
    const value = record[key];
    if (typeof value === "string" && value.trim()) return value.trim().slice(0, 500);
    if (typeof value === "object" && value !== null && typeof (value as { message?: unknown }).message === "string") return (value as { message: string }).message.slice(0, 500);
  }
  const errors = record.errors;
  if (Array.isArray(errors) && errors.length) return bodyMessage(errors[0]);
  return JSON.stringify(body).slice(0, 500);
}
