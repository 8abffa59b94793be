/**
 * The gateway's open client sessions (one per stdio connection or HTTP session): each is an MCP server object plus
 * what that session's own searches exposed. The surfaces (surfaces/) keep per-session state here and notify sessions
 * through it; transports own the connections, and `http-sessions.ts` owns the HTTP expiry and cap.
 */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { Server } from "./sdk.js";

/** One client session: its MCP server object and the tools its own searches exposed. */
export interface GatewaySession {
  readonly server: Server;
  readonly exposed: Map<string, McpTool>;
}

/** The set of open sessions of one gateway. */
export class Sessions implements Iterable<GatewaySession> {
  private readonly open = new Set<GatewaySession>();

  /** Tracks a session until its server closes. */
  add(session: GatewaySession): void {
    this.open.add(session);
    session.server.onclose = () => this.open.delete(session);
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
