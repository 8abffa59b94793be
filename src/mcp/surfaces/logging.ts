/**
 * The logging surface: each session's `logging/setLevel` is honoured (the SDK keeps the level per session once the
 * capability is declared), and every upstream's `notifications/message` is passed on to each session at or above
 * its level, with the server's name as the logger (`server` or `server/<its own logger>`).
 */
import type { LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js";
import type { GatewaySession, Sessions } from "../sessions.js";
import type { Surface } from "./surface.js";

export class LoggingSurface implements Surface {
  readonly capabilities = { logging: {} };
  private readonly sessions: Sessions;

  constructor(sessions: Sessions) {
    this.sessions = sessions;
  }

  register(_session: GatewaySession): void {
    // The SDK's Server installs the `logging/setLevel` handler itself when the capability is declared.
  }

  /** Forwards one upstream log message to every session that wants its level. */
  forward(server: string, params: LoggingMessageNotification["params"]): void {
    const logger = params.logger ? `${server}/${params.logger}` : server;
    for (const session of this.sessions) {
      const sessionId = session.server.transport?.sessionId;
      void session.server.sendLoggingMessage({ ...params, logger }, sessionId).catch(() => undefined);
    }
  }
}
