/**
 * Secrets at rest (SPEC §15): OAuth tokens and client secrets are sealed with AES-256-GCM before they reach the
 * store, so a copied database file (or a PostgreSQL dump) does not hold them. The key comes from
 * `TOOLSEARCH_SECRET_KEY` (32 bytes as 64 hex digits or base64) or the file `TOOLSEARCH_SECRET_KEY_FILE` names, else from `$TOOLSEARCH_HOME/secret.key`, created
 * on first use with mode 0600 and refused when anyone but its owner may read it. Each value is bound to its owner
 * and name (additional authenticated data), so a sealed value moved to another row does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolsearchError } from "../errors.js";
import { secretFromEnv } from "../ops/environment.js";
import { toolsearchHome } from "../store/open.js";
import type { Store } from "../store/types.js";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Where the key comes from: the environment, else a key file (created when missing). */
export interface SecretKeyOptions {
  env?: NodeJS.ProcessEnv;
  /** The key file (default `$TOOLSEARCH_HOME/secret.key`). */
  keyFile?: string;
}

/** Whether a key is set up (the variable, or the key file): without one no secret can have been stored yet. */
export function secretKeyAvailable(options: SecretKeyOptions = {}): boolean {
  const env = options.env ?? process.env;
  return Boolean(secretFromEnv("TOOLSEARCH_SECRET_KEY", env)?.trim()) || existsSync(options.keyFile ?? join(toolsearchHome(env), "secret.key"));
}

/** The 32-byte key, from `TOOLSEARCH_SECRET_KEY` or the key file (made with mode 0600 when missing). */
export function loadSecretKey(options: SecretKeyOptions = {}): Buffer {
  const env = options.env ?? process.env;
  const fromEnv = secretFromEnv("TOOLSEARCH_SECRET_KEY", env)?.trim();
  if (fromEnv) return decodeKey(fromEnv, env.TOOLSEARCH_SECRET_KEY ? "TOOLSEARCH_SECRET_KEY" : "the file TOOLSEARCH_SECRET_KEY_FILE names");
  const file = options.keyFile ?? join(toolsearchHome(env), "secret.key");
  try {
    mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
    // `wx`: never overwrite a key another process just made; losing it would make every sealed secret unreadable.
    writeFileSync(file, `${randomBytes(32).toString("base64")}\n`, { flag: "wx", mode: 0o600 });
    chmodSync(file, 0o600); // against a umask that narrowed nothing but widened the mode
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw keyError(`cannot create the key file ${file}: ${(error as Error).message}`);
  }
  const mode = statSync(file).mode & 0o777;
  if (process.platform !== "win32" && (mode & 0o077) !== 0) {
    throw keyError(`the key file ${file} has mode ${mode.toString(8).padStart(4, "0")}; others may read it. Run chmod 600 ${file}.`);
  }
  return decodeKey(readFileSync(file, "utf8").trim(), file);
}

function decodeKey(text: string, where: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, "hex") : Buffer.from(text, "base64");
  if (key.length !== 32) throw keyError(`${where} must hold 32 bytes as 64 hex digits or base64 (got ${key.length} bytes); make one with: openssl rand -base64 32`);
  return key;
}

function keyError(message: string): ToolsearchError {
  return new ToolsearchError("secret_key_invalid", message);
}

/**
 * Seals and opens strings with one key.
 *
 * @example
 * const box = new SecretBox(loadSecretKey());
 * const sealed = box.seal("token", "gateway:github/tokens");
 * box.open(sealed, "gateway:github/tokens"); // "token"
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw keyError("an AES-256-GCM key is 32 bytes");
  }

  /** `v1:` and base64 of IV, tag and ciphertext. `context` must be given again to open it. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
  }

  open(sealed: string, context: string): string {
    const [version, payload] = sealed.split(":", 2);
    const raw = Buffer.from(payload ?? "", "base64");
    if (version !== VERSION || raw.length < IV_BYTES + TAG_BYTES) throw keyError(`a stored secret (${context}) is not in a format this toolsearch reads`);
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch {
      throw keyError(`a stored secret (${context}) does not open with this key: it was sealed with another TOOLSEARCH_SECRET_KEY or key file (log in again, or restore that key)`);
    }
  }
}

/**
 * JSON values kept sealed in the store, per owner (e.g. `gateway:github`) and name (e.g. `tokens`).
 *
 * @example
 * const secrets = new Secrets(store, new SecretBox(loadSecretKey()));
 * await secrets.put("gateway:github", "tokens", { access_token: "…" });
 */
export class Secrets {
  constructor(
    private readonly store: Pick<Store, "getSecret" | "putSecret" | "deleteSecrets">,
    private readonly box: SecretBox,
  ) {}

  async get<T>(owner: string, name: string): Promise<T | undefined> {
    const sealed = await this.store.getSecret(owner, name);
    return sealed === undefined ? undefined : (JSON.parse(this.box.open(sealed, `${owner}/${name}`)) as T);
  }

  async put(owner: string, name: string, value: unknown): Promise<void> {
    await this.store.putSecret(owner, name, this.box.seal(JSON.stringify(value), `${owner}/${name}`));
  }

  /** Forgets one value, or every value of the owner. */
  async delete(owner: string, name?: string): Promise<void> {
    await this.store.deleteSecrets(owner, name);
  }
}
