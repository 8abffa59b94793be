/**
 * Namespaced tool names: an upstream tool `read_file` of server `fs` is known to the agent as `fs__read_file`.
 * Names must stay valid per SPEC §3 (`^[a-zA-Z0-9_-]{1,64}$`), so other characters become `_` and a name that would
 * be too long is cut and given a short hash of the original, which keeps it unique and stable across restarts.
 */
import { createHash } from "node:crypto";

export const SEPARATOR = "__";
const MAX_NAME = 64;
const HASH_CHARS = 8;

/** Replaces every character a tool name may not hold with `_`. */
export function sanitizeNamePart(part: string): string {
  const clean = part.replace(/[^a-zA-Z0-9_-]/g, "_");
  return clean.length ? clean : "_";
}

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, HASH_CHARS);
}

/**
 * The gateway name of an upstream tool. Deterministic: the same server and tool always give the same name.
 * When the plain `server__tool` is invalid or longer than 64 characters, a hash of the originals is appended.
 */
export function namespacedName(server: string, tool: string): string {
  const plain = `${sanitizeNamePart(server)}${SEPARATOR}${sanitizeNamePart(tool)}`;
  const changed = plain !== `${server}${SEPARATOR}${tool}`;
  if (!changed && plain.length <= MAX_NAME) return plain;
  const hash = shortHash(`${server}\u0000${tool}`);
  if (plain.length + 1 + HASH_CHARS <= MAX_NAME) return `${plain}_${hash}`;
  return `${plain.slice(0, MAX_NAME - 1 - HASH_CHARS)}_${hash}`;
}

/** The prefix every tool of a server carries (used to tell the agent that a server is down). */
export function serverPrefix(server: string): string {
  return `${sanitizeNamePart(server)}${SEPARATOR}`;
}
