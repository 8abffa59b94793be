/**
 * Whether a server of a gateway (or `mcp` collection) needs an OAuth login, read from the sealed store (SPEC §15):
 * what the console shows per server. Only a state is returned, never a token or anything derived from one.
 */
import { isStdioConfig, type ServerConfig } from "../mcp/config.js";
import { oauthOwner, StoredOAuthProvider, type SecretStore } from "./upstream-oauth.js";

/**
 * - `none`: no login asked for so far (a stdio server, or a remote one that never answered 401);
 * - `machine`: a machine account (`client_credentials`), never a person's login;
 * - `needs_login`: the server asked for OAuth and holds no tokens: someone must run `toolsearch mcp login`;
 * - `logged_in`: tokens are stored and the access token has not expired;
 * - `expired`: the access token expired; with a refresh token the next call renews it, otherwise a login is needed.
 */
export type LoginState = "none" | "machine" | "needs_login" | "logged_in" | "expired";

/** One server's login state. */
export interface LoginStatus {
  state: LoginState;
  /** For `logged_in` and `expired`: whether a refresh token is kept (the next call renews the access token). */
  refreshable?: boolean;
  /** When the access token expires(d), ISO 8601 (when the authorization server said). */
  expiresAt?: string;
}

/** Reads a server's login state; `owner` is the gateway's (`gateway`) or a collection's (`collection:NAME`). */
export async function loginStatus(store: SecretStore, owner: string, server: string, config: ServerConfig, now = Date.now()): Promise<LoginStatus> {
  if (isStdioConfig(config)) return { state: "none" };
  if (config.oauth?.grant === "client_credentials") return { state: "machine" };
  const provider = new StoredOAuthProvider(store, oauthOwner(owner, server), config.oauth);
  // Reading a state must not change it: tokens() would refresh a token close to expiry.
  const tokens = await provider.storedTokens();
  if (!tokens?.access_token) {
    // Discovery is saved only after a 401 asked for OAuth; a pending step-up also means the server wants a login.
    const asked = (await provider.discoveryState()) !== undefined || (await provider.pendingScope()) !== undefined;
    return { state: asked ? "needs_login" : "none" };
  }
  const expiresAt = tokens.expires_at !== undefined ? new Date(tokens.expires_at * 1000) : undefined;
  const expired = expiresAt !== undefined && expiresAt.getTime() <= now;
  return { state: expired ? "expired" : "logged_in", refreshable: tokens.refresh_token !== undefined, ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}) };
}
