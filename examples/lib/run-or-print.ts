/**
 * Shared by the examples: with ANTHROPIC_API_KEY set, run the agent for real and print what it did; without, print the
 * first request it would send, show one meta-tool call answered locally, and exit 0.
 */
import Anthropic from "@anthropic-ai/sdk";
import { type AgentEvent, buildAnthropicRequest, checkAnthropicRequest, runAgent, type RunAgentOptions, Toolbox } from "../../src/anthropic.js";

/** Everything `runAgent` takes except the client, plus a meta-tool call to show offline. */
export interface ExampleOptions extends Omit<RunAgentOptions, "client" | "model"> {
  prompt: string;
  /** A call to answer locally when there is no API key, e.g. { name: "tool_search", input: { query: "…" } }. */
  offlineCall?: { name: string; input: Record<string, unknown> };
}

export async function runOrPrint(options: ExampleOptions): Promise<void> {
  const model = process.env.ANTHROPIC_MODEL ?? "claude-sonnet-4-5";
  if (!process.env.ANTHROPIC_API_KEY) {
    const toolbox = new Toolbox(options.catalog, options);
    const request = buildAnthropicRequest(toolbox, { ...options, model, messages: [{ role: "user", content: options.prompt }] });
    checkAnthropicRequest(request);
    console.log("ANTHROPIC_API_KEY is not set, so nothing is sent. The first request would be:\n");
    console.log(JSON.stringify(request, null, 2));
    if (options.offlineCall) {
      const result = await toolbox.call(options.offlineCall);
      console.log(`\nAnswered locally, ${options.offlineCall.name}(${JSON.stringify(options.offlineCall.input)}) returns:\n`);
      console.log(JSON.stringify(result.content, null, 2));
    }
    return;
  }
  const run = await runAgent({ ...options, model, client: new Anthropic(), onEvent: log });
  console.log(`\nClaude: ${run.text}\n`);
  console.log("Stats:", JSON.stringify(run.stats));
}

function log(event: AgentEvent): void {
  if (event.type === "tool_call") {
    const status = event.result.isError ? "error" : "ok";
    console.log(`[${event.name}] ${JSON.stringify(event.input)} → ${status}${event.result.loaded.length ? `, loaded ${event.result.loaded.join(", ")}` : ""}`);
  }
}
