/**
 * An OpenAPI document served through the gateway as if it were an upstream MCP server: its operations become tools
 * (named `api__operation` by the gateway), and `call_tool` sends the HTTP request. There is no process to start or
 * restart; `start` imports the document and fills the credentials from the environment.
 */
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { ToolsearchError } from "../errors.js";
import { expandEnv, resolveAuth } from "../openapi/auth.js";
import { httpErrorMessage, OpenApiClient } from "../openapi/call.js";
import type { OpenApiSourceConfig } from "../openapi/config.js";
import type { ToolsListener } from "./upstream.js";

export class OpenApiUpstream {
  private client?: OpenApiClient;
  private failure?: string;

  constructor(
    readonly name: string,
    readonly config: OpenApiSourceConfig,
    private readonly onTools: ToolsListener,
    private readonly options: { log?: (line: string) => void; env?: NodeJS.ProcessEnv; callTimeoutMs?: number } = {},
  ) {}

  get state(): "starting" | "ready" | "closed" {
    return this.client ? "ready" : this.failure ? "closed" : "starting";
  }

  /** Imports the document. Throws `config_invalid` (naming this API) when it or its credentials cannot be used. */
  async start(): Promise<void> {
    const where = `openapi ${JSON.stringify(this.name)}`;
    const env = this.options.env ?? process.env;
    try {
      const auth = resolveAuth(this.config.auth, env, `${where}: auth`);
      const headers = Object.fromEntries(Object.entries(this.config.headers ?? {}).map(([k, v]) => [k, expandEnv(v, env, `${where}: headers.${k}`)]));
      const serverVariables = this.config.serverVariables
        && Object.fromEntries(Object.entries(this.config.serverVariables).map(([k, v]) => [k, expandEnv(v, env, `${where}: serverVariables.${k}`)]));
      this.client = await OpenApiClient.fromSpec(this.config.spec, {
        baseUrl: this.config.baseUrl, server: this.config.server, serverVariables, auth, headers,
        timeoutMs: this.config.timeoutMs ?? this.options.callTimeoutMs, maxResponseBytes: this.config.maxResponseBytes,
      });
    } catch (error) {
      this.failure = error instanceof Error ? error.message : String(error);
      if (error instanceof ToolsearchError) throw new ToolsearchError("config_invalid", `${where}: ${error.message}`);
      throw error;
    }
    const { tools, skipped } = this.client.catalog;
    const note = skipped.length ? ` (${skipped.length} operation${skipped.length === 1 ? "" : "s"} skipped: ${skipped.map((s) => `${s.method} ${s.path}: ${s.reason}`).join("; ")})` : "";
    (this.options.log ?? ((line) => process.stderr.write(`${line}\n`)))(`toolsearch mcp: openapi "${this.name}" ready with ${tools.length} tools${note}`);
    this.onTools(this.name, tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.input_schema as McpTool["inputSchema"] })), "listed");
  }

  /** Sends the operation's request; a 4xx/5xx answer or a failure to reach the API is an error result. */
  async callTool(tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
    if (!this.client) throw new ToolsearchError("upstream_unavailable", this.describeOutage());
    const result = await this.client.call(tool, args);
    const text = JSON.stringify({ status: result.status, headers: result.headers, body: result.body, ...(result.truncated ? { truncated: true } : {}) });
    if (result.ok) return { content: [{ type: "text", text }] };
    return { content: [{ type: "text", text: `${httpErrorMessage(result)}\n${text}` }], isError: true };
  }

  describeOutage(): string {
    return this.failure ? `API "${this.name}" could not be loaded (${this.failure})` : `API "${this.name}" is still loading`;
  }

  async close(): Promise<void> {
    this.client = undefined;
    this.failure ??= "shut down";
  }
}
