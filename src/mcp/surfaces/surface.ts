/**
 * What every MCP surface of the gateway (tools now; resources, prompts, completion and logging as they arrive) has in
 * common: the capabilities it declares, and the request handlers it installs on each new session. A surface reads
 * the upstream registry (registry.ts) and keeps its per-session state in the session table (sessions.ts).
 */
import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { GatewaySession } from "../sessions.js";

export interface Surface {
  /** Merged into the capabilities every session declares. */
  readonly capabilities: ServerCapabilities;
  /** Installs this surface's request handlers on a session (a new one, or one handed over from another gateway). */
  register(session: GatewaySession): void;
}
