/**
 * Vendor extensions (`x-…` keys) are the vendor's own data, not schema: toolsearch never follows a `$ref` inside one.
 * Published specs put references there that lead nowhere a reader can go: Spotify's lists a policy per operation and
 * per schema property (`"x-spotify-policy-list": [{"$ref": "#/components/x-spotify-policy/StandalonePreview"}]`),
 * where `components.x-spotify-policy` is itself a reference to a file the spec does not ship. A bundler follows
 * every `$ref` it meets, so one such reference refused the whole document. An extension holding a `$ref` is dropped
 * before bundling (toolsearch reads no extension), and the warnings name each one.
 *
 * Keys are extensions only where OpenAPI puts fields: a key of a map of names (`properties`, `headers`, components'
 * `schemas`, …) is a name, so a property or header called `x-request-id` is kept as it is, and values under `example`,
 * `default`, `enum` and `const` are data.
 *
 * @example
 * ```ts
 * const dropped = detachExtensionRefs(doc); // [{ name: "x-spotify-policy-list", at: "#/paths/~1albums~1{id}/get" }, …]
 * warnings.push(...extensionWarnings(dropped));
 * ```
 */

/** An extension left out: its key and the object (a JSON pointer) that held it. */
export interface DetachedExtension {
  name: string;
  at: string;
}

/** Keys whose value maps names (not fields) to objects. */
const NAME_MAPS = new Set([
  "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "headers", "encoding", "links", "callbacks",
  "variables", "scopes", "mapping", "examples", "schemas", "parameters", "requestBodies", "securitySchemes",
  "pathItems", "content", "webhooks",
]);
/** Keys whose value is data written by the vendor: nothing in it is a field or a reference. */
const DATA_KEYS = new Set(["example", "default", "enum", "const", "value"]);

/** Drops, in place, every extension that holds a `$ref`; returns what it dropped, in document order. */
export function detachExtensionRefs(doc: unknown): DetachedExtension[] {
  const dropped: DetachedExtension[] = [];
  const visit = (node: unknown, at: string, names: boolean): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, `${at}/${i}`, false));
      return;
    }
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (!names && DATA_KEYS.has(key)) continue;
      if (!names && key.startsWith("x-")) {
        if (holdsRef(value)) {
          delete (node as Record<string, unknown>)[key];
          dropped.push({ name: key, at });
        }
        continue;
      }
      // (`responses` and `paths` are not maps of names here: codes and paths never start with "x-", so an x- key in
      // them is an extension, as OpenAPI says.)
      visit(value, `${at}/${pointerPart(key)}`, !names && NAME_MAPS.has(key) && !Array.isArray(value));
    }
  };
  visit(doc, "#", false);
  return dropped;
}

/** One warning per extension name: how many were left out, and where the first one was. */
export function extensionWarnings(dropped: DetachedExtension[]): string[] {
  const byName = new Map<string, DetachedExtension[]>();
  for (const entry of dropped) byName.set(entry.name, [...(byName.get(entry.name) ?? []), entry]);
  return [...byName].map(([name, entries]) => {
    const where = entries.length === 1 ? `at ${entries[0].at}` : `in ${entries.length} places, first at ${entries[0].at}`;
    return `repaired: vendor extension ${name} ${where} holds a $ref, which is not followed (extensions are not schema): left out`;
  });
}

function holdsRef(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(holdsRef);
  if (typeof node !== "object" || node === null) return false;
  if (typeof (node as { $ref?: unknown }).$ref === "string") return true;
  return Object.values(node).some(holdsRef);
}

function pointerPart(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
