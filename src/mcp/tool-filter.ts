/**
 * Per-server tool selection: `"tools": {"allow": [globs], "deny": [globs]}` on the upstream's own tool names. A tool
 * is kept when it matches some `allow` glob (or there is no `allow` list) and no `deny` glob. Globs know `*` (any run
 * of characters, including none) and `?` (one character); everything else is literal, and matching is case-sensitive
 * because tool names are. The globs come from configuration and keys, so they run on the non-backtracking matcher
 * (text/glob.ts).
 *
 * @example
 * ```ts
 * const keep = toolFilter({ allow: ["read_*"], deny: ["*_secret"] });
 * keep("read_file"); // true
 * keep("read_secret"); // false
 * ```
 */
import { compileGlob } from "../text/glob.js";

/** The `tools` field of a server block. */
export interface ToolSelection {
  allow?: string[];
  deny?: string[];
}

/** A predicate on upstream tool names; keeps everything when `selection` is absent. */
export function toolFilter(selection: ToolSelection | undefined): (tool: string) => boolean {
  const allow = selection?.allow?.map((glob) => compileGlob(glob));
  const deny = (selection?.deny ?? []).map((glob) => compileGlob(glob));
  return (tool) => (!allow || allow.some((match) => match(tool))) && !deny.some((match) => match(tool));
}
