/**
 * The gateway as an OAuth client of remote MCP servers (SPEC §15). The protocol (discovery of RFC 9728 / RFC 8414 /
 * OpenID metadata, dynamic registration or a client ID metadata document, PKCE S256, the resource indicator, refresh,
 * scope step-up) is the MCP SDK's `auth()`; this module is the `OAuthClientProvider` it needs, backed by the store's
 * sealed secrets (secrets.ts), so tokens survive restarts and are shared by every process on one store.
 *
 * Two uses: `toolsearch mcp login` (interactive: a loopback redirect URL, the authorization URL handed to the caller)
 * and the running gateway (never interactive: when only a person can help, the call fails at once naming the login
 * command). With `"grant": "client_credentials"` no person is ever needed.
 */
import { randomBytes } from "node:crypto";
import { type AddClientAuthentication, type OAuthClientProvider, type OAuthDiscoveryState, refreshAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { ToolsearchError } from "../errors.js";
import type { Store } from "../store/types.js";
import { type AssertionAlgorithm, clientAssertionAuth, usesClientAssertion } from "./client-assertion.js";
import { loadSecretKey, SecretBox, secretKeyAvailable, Secrets } from "./secrets.js";

/** The `oauth` block of a remote server in the gateway configuration. */
export interface UpstreamOAuthConfig {
  /** A client registered beforehand (otherwise a client ID metadata document or dynamic registration is used). */
  clientId?: string;
  clientSecret?: string;
  /** `private_key_jwt` (RFC 7523) instead of a secret: the client's private key as PEM text (usually `${VAR}`)… */
  privateKey?: string;
  /** …or a file holding it. */
  privateKeyFile?: string;
  /** The assertion's algorithm; default from the key (RSA → RS256, EC P-256 → ES256, Ed25519 → EdDSA). */
  signingAlgorithm?: AssertionAlgorithm;
  /** Scopes to ask for when the server names none. */
  scopes?: string[];
  /** Loopback port of the login redirect (default: a free one). */
  redirectPort?: number;
  /** `client_credentials`: a machine account, no login (needs clientId and clientSecret or a private key). Default: authorization code. */
  grant?: "authorization_code" | "client_credentials";
  /** An https URL where this client's metadata document is published (used when the server supports it). */
  clientMetadataUrl?: string;
  /**
   * Refresh an access token this many seconds before it expires (default: 60, at most half its lifetime), so a call
   * never goes out with a token about to lapse; a token that expires anyway is still refreshed on the server's 401.
   */
  refreshAheadSeconds?: number;
}

/** Tokens as kept: what the authorization server answered, plus when the access token expires (epoch seconds). */
export type StoredTokens = OAuthTokens & { expires_at?: number };

/** The store's secret methods (any `Store`). */
export type SecretStore = Pick<Store, "getSecret" | "putSecret" | "deleteSecrets">;

/** What the running gateway needs to know about a server's OAuth state. */
export interface UpstreamAuth {
  provider: OAuthClientProvider;
  /** Whether a person must log in (no usable tokens, and the last attempt wanted an authorization). */
  loginRequired(): Promise<boolean>;
  /** The error a call gets while a login is required. */
  loginError(): ToolsearchError;
}

/** The command that logs a server in, as error messages name it; `where` is e.g. `--config mcp.json` or `--collection crm`. */
export function loginCommand(server: string, where?: string): string {
  return `toolsearch mcp login ${server}${where ? ` ${where}` : ""}`;
}

/**
 * An `OAuthClientProvider` over sealed secrets, one per server. `redirectUrl` is set for a login; the gateway uses
 * the one the last login registered (refreshes and the client registration stay valid).
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  private secrets?: Secrets;
  /** The authorization URL `auth()` asked to open (a login shows or follows it; the gateway only notes it). */
  authorizationUrl?: URL;
  /** Set once `auth()` got past discovery: the server does want OAuth from us (whatever failed after that). */
  authWanted = false;
  private redirect?: string;
  private refreshing?: Promise<StoredTokens>;
  /** Signs a `private_key_jwt` assertion into each token request; only set when a private key is configured. */
  readonly addClientAuthentication?: AddClientAuthentication;

  constructor(
    private readonly store: SecretStore,
    /** e.g. `gateway:github`: whose secrets these are. */
    private readonly owner: string,
    private readonly config: UpstreamOAuthConfig = {},
    options: { redirectUrl?: string } = {},
  ) {
    this.redirect = options.redirectUrl;
    if (config.clientId && usesClientAssertion(config)) this.addClientAuthentication = clientAssertionAuth({ ...config, clientId: config.clientId });
  }

  /** Whether this server uses a machine account (no login). */
  get machine(): boolean {
    return this.config.grant === "client_credentials";
  }

  get redirectUrl(): string | undefined {
    return this.machine ? undefined : this.redirect;
  }

  get clientMetadataUrl(): string | undefined {
    return this.config.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.config.clientSecret !== undefined;
    return {
      client_name: "toolsearch",
      redirect_uris: this.redirect ? [this.redirect] : [],
      grant_types: this.machine ? ["client_credentials"] : ["authorization_code", "refresh_token"],
      response_types: this.machine ? [] : ["code"],
      token_endpoint_auth_method: this.addClientAuthentication ? "private_key_jwt" : secret ? "client_secret_basic" : "none",
      ...(this.config.scopes?.length ? { scope: this.config.scopes.join(" ") } : {}),
    };
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    this.authWanted = true;
    if (this.config.clientId) return { client_id: this.config.clientId, ...(this.config.clientSecret !== undefined ? { client_secret: this.config.clientSecret } : {}) };
    return this.get<OAuthClientInformationMixed>("client");
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    if (!this.config.clientId) await this.put("client", info);
  }

  /** The tokens as stored, never refreshed: for whoever only reports a login's state. */
  async storedTokens(): Promise<StoredTokens | undefined> {
    return this.get<StoredTokens>("tokens");
  }

  /** The tokens for a request: refreshed first when the access token is due to expire (the SDK calls this). */
  async tokens(): Promise<StoredTokens | undefined> {
    const tokens = await this.storedTokens();
    if (!tokens || !this.dueForRefresh(tokens)) return tokens;
    // Concurrent calls share one refresh: with rotating refresh tokens a second one would be refused.
    this.refreshing ??= this.refreshAhead(tokens).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private dueForRefresh(tokens: StoredTokens): boolean {
    if (this.machine || !tokens.refresh_token || tokens.expires_at === undefined) return false;
    const ahead = this.config.refreshAheadSeconds ?? Math.min(60, (tokens.expires_in ?? 0) / 2);
    return tokens.expires_at - Date.now() / 1000 <= ahead;
  }

  /** Refreshes with what the last login discovered; any failure leaves the tokens as they are (the 401 path remains). */
  private async refreshAhead(tokens: StoredTokens): Promise<StoredTokens> {
    const discovery = await this.discoveryState();
    const client = await this.clientInformation();
    if (!discovery?.authorizationServerUrl || !client) return tokens;
    try {
      const fresh = await refreshAuthorization(discovery.authorizationServerUrl, {
        metadata: discovery.authorizationServerMetadata,
        clientInformation: client,
        refreshToken: tokens.refresh_token!,
        resource: discovery.resourceMetadata?.resource,
        addClientAuthentication: this.addClientAuthentication,
      });
      await this.saveTokens(fresh);
    } catch {
      // Another process on this store may have rotated the refresh token first: what it saved is read back below.
    }
    return (await this.get<StoredTokens>("tokens")) ?? tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    // When the access token expires, as a time: `expires_in` alone says nothing once stored (the console shows it).
    const expiresAt = tokens.expires_in !== undefined ? Math.floor(Date.now() / 1000) + tokens.expires_in : undefined;
    await this.put("tokens", { ...tokens, ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}) });
    await this.remove("pending");
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrl = url;
    // Remembered for the next login: a scope step-up asked for here must be asked for there too.
    await this.put("pending", { scope: url.searchParams.get("scope") ?? undefined });
  }

  /** An unguessable `state` for each authorization URL; the login's callback accepts only the one its URL carried. */
  state(): string {
    return randomBytes(16).toString("base64url");
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    await this.put("verifier", verifier);
  }

  async codeVerifier(): Promise<string> {
    const verifier = await this.get<string>("verifier");
    if (!verifier) throw new ToolsearchError("invalid_usage", "No login is in progress for this server (no PKCE verifier is stored); run the login again.");
    return verifier;
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return this.get<OAuthDiscoveryState>("discovery");
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.put("discovery", state);
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "all") return this.forget();
    await this.remove(scope);
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (!this.machine) return undefined;
    const params = new URLSearchParams({ grant_type: "client_credentials" });
    const wanted = scope ?? this.config.scopes?.join(" ");
    if (wanted) params.set("scope", wanted);
    return params;
  }

  /** The scope a server asked for in its last challenge (a step-up), for the next login. */
  async pendingScope(): Promise<string | undefined> {
    return (await this.get<{ scope?: string }>("pending"))?.scope;
  }

  /** The redirect URL of the last login, which the registered client and refreshes go on using. */
  async rememberedRedirect(): Promise<string | undefined> {
    return this.get<string>("redirect");
  }

  /** Starts a login: a fresh redirect URL (a dynamically registered client for another one is dropped). */
  async beginLogin(redirectUrl: string): Promise<void> {
    if ((await this.rememberedRedirect()) !== redirectUrl && !this.config.clientId) await this.remove("client");
    this.redirect = redirectUrl;
    await this.put("redirect", redirectUrl);
  }

  /** `mcp logout`: tokens, client registration, discovery and any login in progress are forgotten. */
  async forget(): Promise<void> {
    await this.store.deleteSecrets(this.owner);
  }

  private box(): Secrets {
    // The key is loaded on first use only: servers that never ask for OAuth never create a key file.
    this.secrets ??= new Secrets(this.store, new SecretBox(loadSecretKey()));
    return this.secrets;
  }

  private async get<T>(name: string): Promise<T | undefined> {
    // Without a key nothing was ever sealed: a server that does not use OAuth must not create a key file.
    if (!this.secrets && !secretKeyAvailable()) return undefined;
    return this.box().get<T>(this.owner, name);
  }

  private put(name: string, value: unknown): Promise<void> {
    return this.box().put(this.owner, name, value);
  }

  private remove(name: string): Promise<void> {
    return this.store.deleteSecrets(this.owner, name);
  }
}

/** The owner of a server's OAuth secrets: per gateway (or `mcp` collection) and server. */
export function oauthOwner(owner: string, server: string): string {
  return `oauth:${owner}:${server}`;
}

/** The gateway's view of one server: its provider, and whether only a login can help now. */
export function upstreamAuth(store: SecretStore, owner: string, server: string, config: UpstreamOAuthConfig | undefined, where?: string): UpstreamAuth {
  // Never used for an authorization by the gateway itself (only a login completes one); it marks the flow as interactive.
  const provider = new StoredOAuthProvider(store, oauthOwner(owner, server), config, { redirectUrl: "http://127.0.0.1/callback" });
  return {
    provider,
    async loginRequired() {
      if (provider.machine) return false;
      const tokens = await provider.tokens();
      // Registration or any later step may fail without a person too (e.g. no dynamic registration): a login is the way.
      return !tokens?.access_token && (provider.authorizationUrl !== undefined || provider.authWanted);
    },
    loginError() {
      return new ToolsearchError("login_required", `upstream server "${server}" needs an OAuth login: run ${loginCommand(server, where)} (the server stays searchable meanwhile).`, {
        details: { server, command: loginCommand(server, where) },
      });
    },
  };
}
