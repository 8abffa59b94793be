/**
 * An OpenAI-compatible embeddings endpoint (`POST {baseUrl}/embeddings`, as OpenAI, Ollama, vLLM and TEI serve it):
 * texts go in batches; 429 and 5xx answers and network errors are retried with exponential backoff (honouring
 * `Retry-After`); any other 4xx fails at once with the server's message; every request has a timeout.
 */
import { ToolsearchError } from "../errors.js";
import { chunk, type EmbeddingProvider, type EmbedProgress } from "./provider.js";

/** Options of the HTTP provider. */
export interface HttpEmbeddingOptions {
  /** Base URL up to `/v1`, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  baseUrl: string;
  /** Model name sent with every request, e.g. `text-embedding-3-small`. */
  model: string;
  /** Vector length the model returns. */
  dimensions: number;
  /** Bearer token (default: none; e.g. from `OPENAI_API_KEY`). */
  apiKey?: string;
  /** Texts per request (default 64). */
  batchSize?: number;
  /** Retries after the first attempt on 429, 5xx and network errors (default 4). */
  retries?: number;
  /** First backoff delay in ms, doubled per retry (default 500). */
  backoffMs?: number;
  /** Per-request timeout in ms (default 30000). */
  timeoutMs?: number;
  /** Ask the server for `dimensions` (OpenAI's `text-embedding-3-*` can shorten vectors); default false. */
  sendDimensions?: boolean;
}

interface EmbeddingsResponse {
  data?: Array<{ index?: number; embedding?: number[] }>;
}

/** Longest wait honoured from a `Retry-After` header, so a bad header cannot hang a search. */
const MAX_RETRY_AFTER_MS = 30_000;

export class HttpEmbeddingProvider implements EmbeddingProvider {
  readonly id: string;
  readonly dimensions: number;
  private readonly o: Required<Omit<HttpEmbeddingOptions, "apiKey">> & { apiKey?: string };

  constructor(options: HttpEmbeddingOptions) {
    this.o = { batchSize: 64, retries: 4, backoffMs: 500, timeoutMs: 30_000, sendDimensions: false, ...options, baseUrl: options.baseUrl.replace(/\/+$/, "") };
    this.dimensions = options.dimensions;
    this.id = `http:${this.o.baseUrl}#${options.model}`;
  }

  async embed(texts: string[], onProgress?: EmbedProgress): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const batch of chunk(texts, this.o.batchSize)) {
      out.push(...(await this.request(batch)));
      onProgress?.(out.length, texts.length);
    }
    return out;
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    const body = JSON.stringify({ model: this.o.model, input, encoding_format: "float", ...(this.o.sendDimensions ? { dimensions: this.dimensions } : {}) });
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.o.apiKey) headers.authorization = `Bearer ${this.o.apiKey}`;
    for (let attempt = 0; ; attempt++) {
      let retryAfter: number | undefined;
      let problem: string;
      try {
        const response = await fetch(`${this.o.baseUrl}/embeddings`, { method: "POST", headers, body, signal: AbortSignal.timeout(this.o.timeoutMs) });
        if (response.ok) return this.parse(await response.json() as EmbeddingsResponse, input.length);
        const detail = await errorDetail(response);
        problem = `HTTP ${response.status}${detail ? `: ${detail}` : ""}`;
        if (response.status !== 429 && response.status < 500) throw this.error(problem, attempt);
        retryAfter = parseRetryAfter(response.headers.get("retry-after"));
      } catch (error) {
        if (error instanceof ToolsearchError) throw error;
        problem = error instanceof Error && error.name === "TimeoutError" ? `no answer within ${this.o.timeoutMs} ms` : `request failed (${describe(error)})`;
      }
      if (attempt >= this.o.retries) throw this.error(problem, attempt);
      await sleep(retryAfter ?? this.o.backoffMs * 2 ** attempt);
    }
  }

  private parse(json: EmbeddingsResponse, expected: number): Float32Array[] {
    const rows = Array.isArray(json?.data) ? json.data : [];
    const ordered = rows.every((r) => typeof r.index === "number") ? [...rows].sort((a, b) => a.index! - b.index!) : rows;
    if (ordered.length !== expected || ordered.some((r) => !Array.isArray(r.embedding) || r.embedding.length !== this.dimensions)) {
      const got = ordered[0]?.embedding?.length;
      throw this.error(`expected ${expected} embeddings of ${this.dimensions} dimensions, got ${ordered.length}${got !== undefined ? ` of ${got}` : ""}`, 0);
    }
    return ordered.map((r) => Float32Array.from(r.embedding!));
  }

  private error(problem: string, attempt: number): ToolsearchError {
    const tries = attempt > 0 ? ` after ${attempt + 1} attempts` : "";
    return new ToolsearchError("embedding_failed", `Embedding request to ${this.o.baseUrl}/embeddings (model ${this.o.model}) failed${tries}: ${problem}`);
  }
}

async function errorDetail(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const json = JSON.parse(text) as { error?: { message?: string } | string };
    const message = typeof json.error === "string" ? json.error : json.error?.message;
    if (message) return message;
  } catch {
    // Not JSON: show the start of the text.
  }
  return text.slice(0, 200);
}

function parseRetryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.min(Math.max(0, date - Date.now()), MAX_RETRY_AFTER_MS);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
