/**
 * Every `tools/call` sent to an upstream MCP server, observed once: a client span (server, tool, outcome; a child of
 * the request that caused it) and one message on the `toolsearch:upstream-call` diagnostics channel, which the
 * service's metrics count (src/ops/metrics.ts). The channel keeps `mcp/` free of any metrics registry, and costs
 * nothing when no one subscribes (`toolsearch mcp`, library use).
 *
 * @example
 * const result = await observeUpstreamCall("github", "create_issue", () => client.callTool(…));
 */
import { channel } from "node:diagnostics_channel";
import { ToolsearchError } from "../errors.js";
import { inSpan, SpanKind } from "./tracing.js";

/** How an upstream call ended. */
export type UpstreamOutcome = "ok" | "tool_error" | "timeout" | "unavailable" | "error";

/** What the channel carries for each call. */
export interface UpstreamCallMessage {
  server: string;
  tool: string;
  outcome: UpstreamOutcome;
  seconds: number;
}

export const upstreamCalls = channel("toolsearch:upstream-call");

/** Runs one upstream call with its span, and reports how it ended and how long it took. */
export async function observeUpstreamCall<T>(server: string, tool: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  let outcome: UpstreamOutcome = "error";
  try {
    return await inSpan(`call_tool ${server}`, { "toolsearch.server": server, "toolsearch.tool": tool }, async (span) => {
      try {
        const result = await work();
        outcome = (result as { isError?: unknown } | undefined)?.isError === true ? "tool_error" : "ok";
        return result;
      } catch (error) {
        outcome = outcomeOf(error);
        throw error;
      } finally {
        span.setAttribute("toolsearch.outcome", outcome);
      }
    }, SpanKind.CLIENT);
  } finally {
    if (upstreamCalls.hasSubscribers) {
      upstreamCalls.publish({ server, tool, outcome, seconds: (performance.now() - started) / 1000 } satisfies UpstreamCallMessage);
    }
  }
}

function outcomeOf(error: unknown): UpstreamOutcome {
  if (!(error instanceof ToolsearchError)) return "error";
  if (error.code === "upstream_timeout") return "timeout";
  if (error.code === "upstream_unavailable" || error.code === "login_required") return "unavailable";
  return "error";
}
