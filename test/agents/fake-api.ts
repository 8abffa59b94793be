/**
 * A loopback HTTP server that speaks just enough of the Anthropic Messages and OpenAI (Chat Completions, Responses)
 * wire formats to drive the official SDKs through scripted model turns. It records every request body as received,
 * so tests assert on exactly what the SDK put on the wire.
 */
import { createServer, type Server } from "node:http";
import { after } from "node:test";
import type { AddressInfo } from "node:net";

/** A scripted turn: given the request body and its position, the JSON to answer with. */
export type Turn = (body: Record<string, unknown>, index: number) => unknown;

export interface FakeApi {
  url: string;
  /** Request bodies in arrival order, parsed. */
  requests: Record<string, unknown>[];
  /** Raw request bodies, for byte comparisons. */
  raw: string[];
  paths: string[];
  /** Request headers in arrival order. */
  headers: Record<string, string | string[] | undefined>[];
  close(): Promise<void>;
}

/** The small enterprise catalog most agent tests use. */
export const ENTERPRISE_CATALOG = new URL("../fixtures/catalogs/enterprise.json", import.meta.url).pathname;

/** A starter of fake APIs for one test file; every server it started is closed when the file's tests end. */
export function fakeApis(): (turns: Turn[]) => Promise<FakeApi> {
  const servers: FakeApi[] = [];
  after(async () => {
    for (const server of servers) await server.close();
  });
  return async (turns) => {
    const api = await startFakeApi(turns);
    servers.push(api);
    return api;
  };
}

/** Starts a server answering POSTs with the scripted turns in order; a request past the script gets a 500. */
export async function startFakeApi(turns: Turn[]): Promise<FakeApi> {
  const requests: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const paths: string[] = [];
  const headers: FakeApi["headers"] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const index = requests.length;
      raw.push(text);
      paths.push(req.url ?? "");
      headers.push(req.headers);
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      requests.push(body);
      const turn = turns[index];
      if (!turn) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: `no scripted turn ${index}` } }));
        return;
      }
      const answer = turn(body, index);
      if (body.stream === true) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.end(anthropicEvents(answer as Record<string, unknown>).map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(""));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    raw,
    paths,
    headers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A Message as the Messages API streams it: start, each block in pieces, delta, stop. */
function anthropicEvents(message: Record<string, unknown>): [string, unknown][] {
  const content = message.content as Record<string, unknown>[];
  const usage = message.usage as { input_tokens: number; output_tokens: number };
  const events: [string, unknown][] = [
    ["message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }],
  ];
  content.forEach((block, index) => {
    if (block.type === "text") {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }]);
      const text = String(block.text);
      for (const piece of [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))]) {
        events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }]);
      }
    } else {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { ...block, input: {} } }]);
      const json = JSON.stringify(block.input);
      for (const piece of [json.slice(0, 5), json.slice(5)]) {
        events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } }]);
      }
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push(["message_delta", { type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events;
}

let counter = 0;

/** An Anthropic `Message` answering with `content`. */
export function anthropicMessage(content: unknown[], stopReason: string, usage = { input_tokens: 100, output_tokens: 20 }): unknown {
  return { id: `msg_${++counter}`, type: "message", role: "assistant", model: "claude-test", content, stop_reason: stopReason, stop_sequence: null, usage };
}

export function toolUse(name: string, input: unknown, id = `toolu_${++counter}`): unknown {
  return { type: "tool_use", id, name, input };
}

export function text(value: string): unknown {
  return { type: "text", text: value, citations: null };
}

/** An OpenAI Chat Completion answering with a message. */
export function chatCompletion(message: Record<string, unknown>, finishReason: string, usage = { prompt_tokens: 80, completion_tokens: 10 }): unknown {
  return {
    id: `chatcmpl_${++counter}`, object: "chat.completion", created: 1, model: "gpt-test",
    choices: [{ index: 0, message: { role: "assistant", content: null, refusal: null, ...message }, finish_reason: finishReason, logprobs: null }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

export function chatToolCall(name: string, args: unknown, id = `call_${++counter}`): unknown {
  return { id, type: "function", function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) } };
}

/** An OpenAI Responses `Response` with output items. */
export function response(output: unknown[], usage = { input_tokens: 90, output_tokens: 12 }): unknown {
  return {
    id: `resp_${++counter}`, object: "response", created_at: 1, status: "completed", model: "gpt-test", output,
    error: null, incomplete_details: null, instructions: null, metadata: {}, parallel_tool_calls: true, temperature: 1,
    tool_choice: "auto", tools: [], top_p: 1,
    usage: { ...usage, total_tokens: usage.input_tokens + usage.output_tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  };
}

export function functionCall(name: string, args: unknown, callId = `call_${++counter}`): unknown {
  return { type: "function_call", id: `fc_${counter}`, call_id: callId, name, arguments: typeof args === "string" ? args : JSON.stringify(args), status: "completed" };
}

export function outputMessage(value: string): unknown {
  return { type: "message", id: `msg_${++counter}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: value, annotations: [] }] };
}

/** A Responses `tool_search_call` output item (client execution unless said otherwise). */
export function toolSearchCall(args: unknown, callId: string | null = `tsc_${++counter}`, execution: "client" | "server" = "client"): unknown {
  return { type: "tool_search_call", id: `ts_${++counter}`, call_id: callId, arguments: args, execution, status: "completed" };
}

/** A Responses `tool_search_output` item as OpenAI's hosted search returns it. */
export function serverToolSearchOutput(tools: unknown[], callId: string | null = null): unknown {
  return { type: "tool_search_output", id: `tso_${++counter}`, call_id: callId, execution: "server", status: "completed", tools };
}

/** A `function_call` made inside a namespace. */
export function namespacedFunctionCall(namespace: string, name: string, args: unknown, callId = `call_${++counter}`): unknown {
  return { ...(functionCall(name, args, callId) as Record<string, unknown>), namespace };
}
