/**
 * Tool names for operations (SPEC §3: `^[a-zA-Z0-9_-]{1,64}$`, unique). The name comes from the `operationId`, or
 * from the method and path when there is none (`GET /patients/{id}` → `get_patients_id`). Other characters become
 * `_`, runs of `_` collapse (so a name never holds the gateway's `__` separator), and a name too long is cut and given
 * a short hash of the original. A name already taken gets `_2`, `_3` … in document order, so the same document
 * always gives the same names.
 */
import { createHash } from "node:crypto";

const MAX_NAME = 64;
const HASH_CHARS = 8;

/** The name an operation asks for, before uniqueness: from its operationId, else from method and path. */
export function operationBaseName(method: string, path: string, operationId?: string): string {
  const raw = operationId?.trim() ? operationId.trim() : `${method.toLowerCase()}_${path.replace(/[{}]/g, "")}`;
  const clean = raw.replace(/[^a-zA-Z0-9_-]+/g, "_").replace(/_+/g, "_").replace(/^[_-]+|[_-]+$/g, "");
  return clean || `${method.toLowerCase()}_root`;
}

/** Joins an optional prefix and cuts to 64 characters with a hash of the full name when needed. */
export function fitName(base: string, prefix?: string): string {
  const full = prefix ? `${prefix}__${base}` : base;
  if (full.length <= MAX_NAME) return full;
  const hash = createHash("sha256").update(full).digest("hex").slice(0, HASH_CHARS);
  return `${full.slice(0, MAX_NAME - 1 - HASH_CHARS).replace(/_+$/, "")}_${hash}`;
}

/** Hands out unique names: the first asker keeps its name, later ones get `_2`, `_3` … */
export class NameRegistry {
  private readonly taken = new Set<string>();

  /** Whether a name is already handed out. */
  has(name: string): boolean {
    return this.taken.has(name);
  }

  /** A unique name for `base` (already fitted). */
  claim(base: string): string {
    let name = base;
    for (let n = 2; this.taken.has(name); n++) {
      const suffix = `_${n}`;
      name = `${base.slice(0, MAX_NAME - suffix.length)}${suffix}`;
    }
    this.taken.add(name);
    return name;
  }
}

/** Makes a parameter name valid as a property key for the tool APIs (`^[a-zA-Z0-9_.-]{1,64}$`). */
export function argumentKey(name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9_.-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, MAX_NAME);
  return clean || "param";
}
