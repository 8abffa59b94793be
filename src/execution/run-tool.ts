/**
 * Running one tool call safely: the tool is looked up, its input validated (validate-input.ts), its handler run with a
 * timeout, and every way this can fail (unknown tool, no handler, bad input, exception, timeout) becomes an error
 * result the model can read and act on. Nothing here throws for a bad call, so no call can crash an agent loop.
 */
import type { Tool } from "../catalog/tool.js";
import type { ResultBlock } from "../metatools/types.js";
import { InputValidator } from "./validate-input.js";

/** What a handler gets besides the input. */
export interface ToolCallContext {
  toolName: string;
  /** The API's id for this call, when there is one. */
  callId?: string;
  /** Aborted when the call times out; pass it on to fetches and the like. */
  signal: AbortSignal;
}

/**
 * Runs a catalog tool. Return a string (sent as is), content blocks (`{type:"text"}` …), or any JSON value (sent as
 * JSON text). Throw to report a failure: the message goes back to the model as an error result.
 */
export type ToolHandler = (input: Record<string, unknown>, context: ToolCallContext) => unknown;

/** Handlers by tool name. */
export type ToolHandlers = Record<string, ToolHandler> | Map<string, ToolHandler>;

/** How a call ended. */
export type ToolCallStatus = "ok" | "invalid_input" | "unknown_tool" | "no_handler" | "handler_error" | "timeout" | "schema_too_large";

/** The outcome of one call: content for the tool result, and whether it is an error. */
export interface ToolCallOutcome {
  status: ToolCallStatus;
  isError: boolean;
  content: string | ResultBlock[];
  /** The input after coercion and defaults (set when validation passed). */
  input?: Record<string, unknown>;
}

/** What `runTool` needs to know about the catalog. */
export interface ToolLookup {
  get(name: string): Tool | undefined;
  closestNames(name: string, max?: number): string[];
}

/** Options of `runTool`. */
export interface RunToolOptions {
  /** Milliseconds before a handler is given up on (default 30 000). */
  timeoutMs?: number;
  /** Shared validator (compiled schemas are cached in it); one is made when absent. */
  validator?: InputValidator;
  /** Sentence added to an unknown-tool error, e.g. how to find tools ("Use tool_search to find tools."). */
  unknownToolHint?: string;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
const fallbackValidator = new InputValidator();

/** Looks the tool up, validates the input, runs the handler. Never throws for a bad call. */
export async function runTool(
  call: { name: string; input: unknown; id?: string },
  catalog: ToolLookup,
  handlers: ToolHandlers,
  options: RunToolOptions = {},
): Promise<ToolCallOutcome> {
  const tool = catalog.get(call.name);
  if (!tool) {
    const near = catalog.closestNames(call.name);
    const hint = near.length ? ` Did you mean: ${near.join(", ")}?` : "";
    return fail("unknown_tool", `Unknown tool ${JSON.stringify(call.name)}.${hint}${options.unknownToolHint ? ` ${options.unknownToolHint}` : ""}`);
  }
  const handler = handlers instanceof Map ? handlers.get(tool.name) : Object.hasOwn(handlers, tool.name) ? handlers[tool.name] : undefined;
  if (!handler) return fail("no_handler", `Tool ${tool.name} is in the catalog but this application cannot run it (no handler registered). Tell the user it is unavailable, or use another tool.`);
  const check = (options.validator ?? fallbackValidator).validate(tool.name, tool.inputSchema, call.input ?? {});
  if (!check.ok) return fail(check.code === "schema_too_large" ? "schema_too_large" : "invalid_input", check.message);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    const value = await withTimeout(timeoutMs, (signal) => handler(check.input, { toolName: tool.name, callId: call.id, signal }));
    return { status: "ok", isError: false, content: toContent(value), input: check.input };
  } catch (error) {
    if (error instanceof TimeoutError) {
      return { ...fail("timeout", `${tool.name} did not finish within ${timeoutMs} ms and was stopped. Try again later, with a narrower request, or tell the user it timed out.`), input: check.input };
    }
    const reason = error instanceof Error ? error.message : String(error);
    return { ...fail("handler_error", `${tool.name} failed: ${reason}`), input: check.input };
  }
}

/** Turns a handler's return value into tool-result content. */
export function toContent(value: unknown): string | ResultBlock[] {
  if (typeof value === "string") return value;
  if (value === undefined) return "Done (the tool returned nothing).";
  if (Array.isArray(value) && value.length > 0 && value.every(isBlock)) return value as ResultBlock[];
  return JSON.stringify(value);
}

function isBlock(value: unknown): boolean {
  const type = (value as { type?: unknown })?.type;
  return type === "text" || type === "search_result" || type === "tool_reference";
}

function fail(status: ToolCallStatus, message: string): ToolCallOutcome {
  return { status, isError: true, content: message };
}

class TimeoutError extends Error {}

/** Runs `work`, aborting its signal and rejecting with `TimeoutError` after `ms`. */
async function withTimeout<T>(ms: number, work: (signal: AbortSignal) => T): Promise<Awaited<T>> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new TimeoutError());
    }, ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => work(controller.signal)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
