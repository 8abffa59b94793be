/**
 * Tool sets for multi-step tasks (issue 25): a request such as "get the latest news on Tesla and chart its stock"
 * needs several tools, and one ranking of the whole sentence tends to fill its top with tools for the loudest part.
 * Two pieces of evidence help, both taken from the request and the catalog's own structure:
 * - clauses: a request made of several clauses is also searched clause by clause, and each tool keeps its best
 *   clause's share beside its share of the whole request, so that the best tool of every part reaches the top;
 * - groups: tools of one server (`server__tool`), namespace or category (an OpenAPI import puts the tag there) are
 *   often used together, so a group whose best member ranks high lifts its other members.
 */
import { compareRanked, type Ranked } from "../engines/top-k.js";
import type { Tool } from "../catalog/tool.js";

/** How far a group's best other member lifts a tool, as a share of the candidates' score range. */
export const GROUP_LIFT = 0.3;

/** Candidates ranked before clauses and groups rearrange them (enough for a tool lifted from well below the top). */
export const SET_POOL = 50;

/**
 * The group a tool belongs to, or undefined: the server of a `server__tool` name (MCP gateways and registries name
 * tools so), else the category (an API, an OpenAPI tag, a domain).
 */
export function groupOf(tool: Tool): string | undefined {
  const at = tool.name.indexOf("__");
  if (at > 0) return `server:${tool.name.slice(0, at)}`;
  return tool.category ? `category:${tool.category}` : undefined;
}

/**
 * The clauses of a request worth searching on their own: split at sentence ends, semicolons and at "and", "then",
 * "also" or a comma between two parts of at least three words each. A request of one clause gives none.
 */
export function taskClauses(query: string): string[] {
  const parts = query
    .split(/[.!?;]+\s+|[.!?;]+$|\s*,\s*|\s+(?:and then|and also|and|then|also|as well as|plus)\s+/i)
    .map((p) => p.trim().replace(/^(?:and|then|also)\s+/i, ""))
    .filter((p) => p.split(/\s+/).length >= 3);
  return parts.length >= 2 ? parts : [];
}

/**
 * Merges the ranking of a whole request with its clauses' rankings: each tool scores its share of the whole
 * request's score range plus its best share among the clauses' (1 for a list's best, 0 for its last), so that a tool
 * that is best for one part of the request climbs beside those that match the whole. Without clauses the ranking is returned unchanged.
 */
export function mergeClauses(whole: Ranked[], clauses: Ranked[][]): Ranked[] {
  if (clauses.length === 0) return whole;
  const shares = new Map<string, number>();
  const best = new Map<string, number>();
  for (const [id, share] of scaled(whole)) shares.set(id, share);
  for (const list of clauses) for (const [id, share] of scaled(list)) best.set(id, Math.max(best.get(id) ?? 0, share));
  const ids = new Set([...shares.keys(), ...best.keys()]);
  // A sum rather than the larger share: the larger (a round robin of the lists) measured no better on the multi-tool
  // variants and lets a clause's weak second outrank the whole request's strong second.
  return [...ids].map((id) => ({ id, score: (shares.get(id) ?? 0) + (best.get(id) ?? 0) })).sort(compareRanked);
}

/** Each hit's place in its list's score range: 1 for the best, 0 for the last. */
function scaled(list: Ranked[]): [string, number][] {
  const top = list[0]?.score ?? 0;
  const low = list.length ? list[list.length - 1].score : 0;
  const span = top - low;
  return list.map((hit) => [hit.id, span > 0 ? (hit.score - low) / span : 1]);
}

/**
 * Lifts each candidate by its group's best other member: `GROUP_LIFT` × that member's place in the candidates'
 * score range (1 for the best candidate, 0 for the last). A tool alone in its group, or in none, keeps its score.
 */
export function liftGroups(ranked: Ranked[], group: (id: string) => string | undefined): Ranked[] {
  if (ranked.length < 2) return ranked;
  const top = ranked[0].score;
  const low = ranked[ranked.length - 1].score;
  const span = top - low;
  if (span <= 0) return ranked;
  // The two best members of each group: a tool's lift comes from the best member other than itself.
  const leaders = new Map<string, { first: Ranked; second?: Ranked }>();
  for (const hit of ranked) {
    const g = group(hit.id);
    if (g === undefined) continue;
    const entry = leaders.get(g);
    if (!entry) leaders.set(g, { first: hit });
    else if (!entry.second) entry.second = hit;
  }
  return ranked
    .map((hit) => {
      const g = group(hit.id);
      const entry = g === undefined ? undefined : leaders.get(g);
      const other = entry && (entry.first.id === hit.id ? entry.second : entry.first);
      return other ? { id: hit.id, score: hit.score + GROUP_LIFT * (other.score - low) } : hit;
    })
    .sort(compareRanked);
}
