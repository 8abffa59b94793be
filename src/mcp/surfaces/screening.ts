/**
 * Result screening (SPEC §16, src/trust/screen.ts) as the surfaces apply it: which mode a server's answers get, and
 * how a relayed prompt or resource is flagged or withheld. A tool call reports a withheld result inside an error
 * result (tools.ts); a prompt or a resource has no such result, so under `block` it is an MCP error whose message
 * names the rules and never repeats the payload.
 */
import type { GatewayOptions } from "../gateway.js";
import { ErrorCode, McpError } from "../sdk.js";
import { blockedMessage, flagRules, SCREEN_META_KEY, type ScreenFlag, type ScreenMode, withFlags } from "../../trust/screen.js";

/** Whose screening modes these are: the gateway's `--screen-results` and each server's `"screenResults"`. */
export type ScreenSettings = Pick<GatewayOptions, "config" | "screenResults">;

/** The screening mode of one server's answers: its `"screenResults"`, else the gateway's (default `warn`). */
export function screenModeOf(settings: ScreenSettings, server: string): ScreenMode {
  return settings.config?.mcpServers[server]?.screenResults ?? settings.screenResults ?? "warn";
}

/**
 * Applies a mode to a relayed prompt or resource: unchanged when nothing was flagged or the mode is `off`, with the
 * flags in `_meta` under `warn`, an MCP error (`result_blocked: …`, the rules in its data) under `block`.
 */
export function screenRelayed<T extends { _meta?: Record<string, unknown> }>(result: T, mode: ScreenMode, screen: (result: T) => ScreenFlag[], what: string): T {
  if (mode === "off") return result;
  const flags = screen(result);
  if (!flags.length) return result;
  if (mode === "warn") return withFlags(result, flags);
  throw new McpError(ErrorCode.InternalError, blockedMessage(what, flags), { [SCREEN_META_KEY]: { blocked: true, rules: flagRules(flags) } });
}
