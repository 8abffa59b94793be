/**
 * `${VAR}` and `${VAR:-default}` in a server block, filled from the gateway's environment when the gateway starts.
 * The configuration is kept as written (its hash identifies the block, so no secret value reaches the store); only
 * the copy that starts the server holds the values. Every value that could be a secret (an interpolated value, an
 * `env` value, a `headers` value) is collected so that logs and error messages can mask it.
 *
 * @example
 * ```ts
 * const { config } = resolveServerConfig({ command: "gh-mcp", env: { TOKEN: "${GH_TOKEN}" } }, process.env);
 * ```
 */
import { expandVariables, type Environment } from "../text/env-variables.js";
import type { HttpServerConfig, ServerConfig } from "./config.js";

/** A reference to a variable that is not set and has no default. */
export interface MissingVariable {
  /** The field as a user writes it, e.g. `args[2]` or `headers.Authorization`. */
  field: string;
  variable: string;
}

/** A server block with its variables filled in, and the values to mask in anything shown. */
export interface ResolvedServer {
  config: ServerConfig;
  secrets: string[];
  missing: MissingVariable[];
}

/**
 * Fills `${VAR}` / `${VAR:-default}` in `command`, `args`, `env`, `url` and `headers`. A set but empty variable
 * counts as set (as in shells without `:-`, it is the user's explicit choice), except that `:-` treats empty as unset.
 */
export function resolveServerConfig(config: ServerConfig, environment: Environment): ResolvedServer {
  const secrets: string[] = [];
  const missing: MissingVariable[] = [];
  const fill = (field: string, value: string, secret: boolean): string => {
    const filled = expandVariables(value, environment, {
      onValue: (set) => secrets.push(set),
      onMissing: (variable) => {
        missing.push({ field, variable });
        return "";
      },
    });
    if (secret) secrets.push(filled);
    return filled;
  };
  const fillMap = (field: string, map: Record<string, string> | undefined) =>
    map && Object.fromEntries(Object.entries(map).map(([key, value]) => [key, fill(`${field}.${key}`, value, true)]));

  const resolved: ServerConfig = "command" in config
    ? { ...config, command: fill("command", config.command, false), args: config.args?.map((arg, i) => fill(`args[${i}]`, arg, false)), env: fillMap("env", config.env) }
    : { ...config, url: fill("url", config.url, false), headers: fillMap("headers", config.headers), oauth: config.oauth && fillOAuth(config.oauth, fill) };
  return { config: dropUndefined(resolved), secrets, missing };
}

/** `${VAR}` in an `oauth` block: the client ID, secret and private key (secret and key are masked wherever it might be shown). */
function fillOAuth(oauth: NonNullable<HttpServerConfig["oauth"]>, fill: (field: string, value: string, secret: boolean) => string): HttpServerConfig["oauth"] {
  return {
    ...oauth,
    ...(oauth.clientId !== undefined ? { clientId: fill("oauth.clientId", oauth.clientId, false) } : {}),
    ...(oauth.clientSecret !== undefined ? { clientSecret: fill("oauth.clientSecret", oauth.clientSecret, true) } : {}),
    ...(oauth.privateKey !== undefined ? { privateKey: fill("oauth.privateKey", oauth.privateKey, true) } : {}),
    ...(oauth.privateKeyFile !== undefined ? { privateKeyFile: fill("oauth.privateKeyFile", oauth.privateKeyFile, false) } : {}),
  };
}

/** The sentence for a missing variable: names the server, the field and the variable, never a value. */
export function describeMissing(server: string, missing: MissingVariable): string {
  return `server ${JSON.stringify(server)}: field "${missing.field}" uses \${${missing.variable}}, which is not set in the gateway's environment (set it, or write \${${missing.variable}:-default})`;
}

/** The shortest value worth masking: shorter ones ("1", "on") would mangle ordinary text and protect nothing. */
const MIN_SECRET_LENGTH = 4;

/**
 * A function that replaces every occurrence of a secret value with `***`.
 *
 * @example
 * ```ts
 * redactor(["s3cret-token"])("401 for s3cret-token"); // "401 for ***"
 * ```
 */
export function redactor(secrets: string[]): (text: string) => string {
  const values = [...new Set(secrets)].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  if (!values.length) return (text) => text;
  return (text) => values.reduce((out, value) => out.split(value).join("***"), text);
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
