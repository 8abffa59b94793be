/**
 * `private_key_jwt` client authentication (RFC 7523 §2.2) for the gateway's upstream OAuth client: each token request
 * carries a short-lived JWT signed with the client's private key instead of a client secret. The signing itself is the
 * MCP SDK's `createPrivateKeyJwtAuth`; this module turns what a user configures (a PEM in any common form, inline or in
 * a file, an optional algorithm) into its options, and refuses a bad key with an error that never quotes the key.
 */
import { createPrivateKey, type KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { AddClientAuthentication } from "@modelcontextprotocol/sdk/client/auth.js";
import { ToolsearchError } from "../errors.js";

/** The algorithms an assertion may be signed with: asymmetric only (a shared secret is what `clientSecret` is for). */
export const ASSERTION_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"] as const;
export type AssertionAlgorithm = (typeof ASSERTION_ALGORITHMS)[number];

/** Where the client's private key comes from, and how to sign with it. */
export interface ClientAssertionOptions {
  clientId: string;
  /** The PEM text (PKCS#8, or PKCS#1 / SEC1). */
  privateKey?: string;
  /** A file holding the PEM, read when the first token is requested. */
  privateKeyFile?: string;
  /** Default: from the key (RSA → RS256, P-256/384/521 → ES256/384/512, Ed25519 → EdDSA). */
  signingAlgorithm?: AssertionAlgorithm;
}

/** Whether a server's oauth block asks for `private_key_jwt`. */
export function usesClientAssertion(options: { privateKey?: string; privateKeyFile?: string }): boolean {
  return options.privateKey !== undefined || options.privateKeyFile !== undefined;
}

/** The SDK's `addClientAuthentication` for these options; the key is loaded and checked on the first token request. */
export function clientAssertionAuth(options: ClientAssertionOptions): AddClientAuthentication {
  let signer: Promise<AddClientAuthentication> | undefined;
  return async (headers, params, url, metadata) => {
    signer ??= makeSigner(options);
    // A failed load is not cached: a key file fixed in the meantime is picked up by the next request.
    const sign = await signer.catch((error: unknown) => { signer = undefined; throw error; });
    try {
      await sign(headers, params, url, metadata);
    } catch {
      // jose refuses a key of another kind than the algorithm; its message is not shown (it is about the key).
      throw new ToolsearchError("config_invalid", `oauth.signingAlgorithm ${options.signingAlgorithm ?? "(default)"} cannot sign with this oauth.privateKey`);
    }
  };
}

/**
 * Loads the key and signs one throw-away assertion, so that a key that cannot be read, parsed or used with its
 * algorithm is refused when the gateway starts rather than at its first token request (`config_invalid`).
 */
export async function checkClientAssertion(options: ClientAssertionOptions): Promise<void> {
  const sign = clientAssertionAuth(options);
  await sign(new Headers(), new URLSearchParams(), new URL("https://authorization-server.invalid/token"), undefined);
}

async function makeSigner(options: ClientAssertionOptions): Promise<AddClientAuthentication> {
  const key = parseKey(await keyText(options));
  const alg = options.signingAlgorithm ?? defaultAlgorithm(key);
  const { createPrivateKeyJwtAuth } = await import("../mcp/sdk-client.js");
  // iss and sub are the client ID (RFC 7523 §3); the audience is the authorization server's issuer, which the SDK
  // takes from the metadata it discovered.
  return createPrivateKeyJwtAuth({
    issuer: options.clientId,
    subject: options.clientId,
    privateKey: alg === "EdDSA" ? (key.export({ format: "jwk" }) as Record<string, unknown>) : key.export({ type: "pkcs8", format: "pem" }).toString(),
    alg,
    lifetimeSeconds: 60,
  });
}

async function keyText(options: ClientAssertionOptions): Promise<string> {
  if (options.privateKey !== undefined) return options.privateKey;
  const file = options.privateKeyFile as string;
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new ToolsearchError("config_invalid", `oauth.privateKeyFile ${JSON.stringify(file)} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
}

function parseKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    // Never the parser's message: it may quote part of the key.
    throw new ToolsearchError("config_invalid", "oauth.privateKey is not a PEM private key (PKCS#8, PKCS#1 or SEC1)");
  }
  return key;
}

function defaultAlgorithm(key: KeyObject): AssertionAlgorithm {
  const type = key.asymmetricKeyType;
  if (type === "rsa") return "RS256";
  if (type === "rsa-pss") return "PS256";
  if (type === "ed25519") return "EdDSA";
  if (type === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const alg = ({ prime256v1: "ES256", secp384r1: "ES384", secp521r1: "ES512" } as const)[curve as string];
    if (alg) return alg;
  }
  throw new ToolsearchError("config_invalid", `oauth.privateKey is a ${type ?? "unknown"} key this client cannot sign with; set oauth.signingAlgorithm or use an RSA, P-256/384/521 or Ed25519 key`);
}
