/**
 * The gateway's open client sessions (one per stdio connection or HTTP session): each is an MCP server object plus
 * what that session's own searches exposed. The surfaces (surfaces/) keep per-session state here and notify sessions
 * through it; transports own the connections, and `http-sessions.ts` owns the HTTP expiry and cap.
 */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolVisibility } from "../indexes/tool-index-options.js";
import type { ScreenOutcome } from "../trust/screen.js";
import type { Server } from "./sdk.js";

/** One client session: its MCP server object, the tools its own searches exposed, the resources it follows. */
export interface GatewaySession {
  readonly server: Server;
  /** The session's id in usage events (SPEC §17): random, made when the session is created. */
  readonly id: string;
  readonly exposed: Map<string, McpTool>;
  /** Resource URIs (as this session sees them) it subscribed to. */
  readonly subscriptions: Set<string>;
  /** The tools this session's caller may see (SPEC §16); absent: every tool. A hidden tool does not exist for it. */
  readonly visible?: ToolVisibility;
  /** Told about every upstream tool call the session makes (the service's audit log). */
  readonly onCall?: (call: ToolCallRecord) => void;
}

/** One upstream tool call, as the audit log records it. */
export interface ToolCallRecord {
  /** The tool's name as the gateway shows it (namespaced for upstream tools). */
  tool: string;
  /**
   * `ok`, `error` (the tool answered with isError), `refused` (unknown tool or bad arguments), `failed` (threw) or
   * `blocked` (result screening withheld the result: the model got a `result_blocked` error instead).
   */
  outcome: "ok" | "error" | "refused" | "failed" | "blocked";
  durationMs: number;
  /** Size of the arguments as JSON, in bytes. */
  argumentBytes: number;
  arguments: unknown;
  /** What result screening found and did (SPEC §16), when it flagged the result. */
  screen?: ScreenOutcome;
}

/** The set of open sessions of one gateway. */
export class Sessions implements Iterable<GatewaySession> {
  private readonly open = new Set<GatewaySession>();
  private readonly closeListeners: ((session: GatewaySession) => void)[] = [];

  /** Tracks a session until its server closes. */
  add(session: GatewaySession): void {
    this.open.add(session);
    session.server.onclose = () => {
      this.open.delete(session);
      for (const listener of this.closeListeners) listener(session);
    };
  }

  /** Calls `listener` with each session that closes while tracked here (to free what it held). */
  onClose(listener: (session: GatewaySession) => void): void {
    this.closeListeners.push(listener);
  }

  /** Stops tracking a session (it stays open: a hand-over moves it to another gateway). */
  release(session: GatewaySession): void {
    this.open.delete(session);
  }

  get size(): number {
    return this.open.size;
  }

  [Symbol.iterator](): Iterator<GatewaySession> {
    return [...this.open][Symbol.iterator]();
  }

  /** Closes every session's server. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.open].map((s) => s.server.close().catch(() => undefined)));
  }
}

/** Tells a session its tool list changed (a session that is gone is ignored). */
export function notifyToolsChanged(session: GatewaySession): void {
  void session.server.sendToolListChanged().catch(() => undefined);
}
