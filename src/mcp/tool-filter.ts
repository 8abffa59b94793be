/**
 * Per-server tool selection: `"tools": {"allow": [globs], "deny": [globs]}` on the upstream's own tool names. A tool
 * is kept when it matches some `allow` glob (or there is no `allow` list) and no `deny` glob. Globs know `*` (any run
 * of characters, including none) and `?` (one character); everything else is literal, and matching is case-sensitive
 * because tool names are.
 *
 * @example
 * ```ts
 * const keep = toolFilter({ allow: ["read_*"], deny: ["*_secret"] });
 * keep("read_file"); // true
 * keep("read_secret"); // false
 * ```
 */

/** The `tools` field of a server block. */
export interface ToolSelection {
  allow?: string[];
  deny?: string[];
}

/** A tool-name glob as an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  const source = [...glob].map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&"))).join("");
  return new RegExp(`^${source}$`, "s");
}

/** A predicate on upstream tool names; keeps everything when `selection` is absent. */
export function toolFilter(selection: ToolSelection | undefined): (tool: string) => boolean {
  const allow = selection?.allow?.map(globToRegExp);
  const deny = (selection?.deny ?? []).map(globToRegExp);
  return (tool) => (!allow || allow.some((re) => re.test(tool))) && !deny.some((re) => re.test(tool));
}
