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
 * "also" or a comma between two parts of at least three words each. A comma inside a number ("$10,000") splits
 * nothing, and quotation marks around the request or a part are not part of its words. A request of one clause
 * gives none.
 */
export function taskClauses(query: string): string[] {
  const parts = query
    .split(/[.!?;]+["'\u201d\u2019]*\s+|[.!?;]+["'\u201d\u2019]*$|\s*(?:(?<!\d),|,(?!\d))\s*|\s+(?:and then|and also|and|then|also|as well as|plus)\s+/i)
    .map((p) => p.trim().replace(QUOTES, "").trim().replace(/^(?:and|then|also)\s+/i, ""))
    .filter((p) => p.split(/\s+/).length >= 3);
  return parts.length >= 2 ? parts : [];
}

/** Quotation marks that open or close a request or one of its parts. */
const QUOTES = /^["'\u201c\u2018]+|["'\u201d\u2019]+$/g;

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

/** A ranking of a request, with the lists merged into it when it was ranked clause by clause (for `explain`). */
export interface ClauseRanking {
  ranked: Ranked[];
  /** The whole request's own ranking, when clauses were merged into it. */
  whole?: Ranked[];
  clauses: { text: string; ranked: Ranked[] }[];
}

/**
 * Ranks a request and, when it has `parts` (its clauses), each of them with the same `rank`, and merges them
 * (`mergeClauses`), keeping the best `pool`. Without parts the request's ranking is returned as `rank` gave it.
 */
export function clauseRanking(query: string, parts: string[], rank: (text: string) => Ranked[], pool: number): ClauseRanking {
  const whole = rank(query);
  if (parts.length === 0) return { ranked: whole, clauses: [] };
  const clauses = parts.map((text) => ({ text, ranked: rank(text) }));
  return { ranked: mergeClauses(whole, clauses.map((c) => c.ranked)).slice(0, pool), whole, clauses };
}

/** What tool sets added to one tool's score (`explain`): its clause shares and its group's lift. */
export interface ExplainedSets {
  /** The request was ranked clause by clause: the tool's share of the whole request's ranking, and of each clause's. */
  clauses?: {
    /** Its place in the whole request's score range (1 best, 0 last or absent); part of the score. */
    whole: number;
    /** Each clause with the tool's place in that clause's score range; the best of them is the other part. */
    parts: { text: string; share: number }[];
  };
  /** Its group's best other candidate lifted it by `lift` (added to the score). */
  group?: { name: string; member: string; lift: number };
}

/** The clause shares of `id` in a clause ranking, or undefined when the request was not split. */
export function explainClauses(ranking: ClauseRanking, id: string): ExplainedSets["clauses"] {
  if (!ranking.whole) return undefined;
  const share = (list: Ranked[]) => scaled(list).find(([hit]) => hit === id)?.[1] ?? 0;
  return { whole: share(ranking.whole), parts: ranking.clauses.map((c) => ({ text: c.text, share: share(c.ranked) })) };
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
  const lifts = groupLifts(ranked, group);
  if (lifts.size === 0) return ranked;
  return ranked.map((hit) => ({ id: hit.id, score: hit.score + (lifts.get(hit.id)?.lift ?? 0) })).sort(compareRanked);
}

/** What `liftGroups` adds to each candidate it lifts, with the group and the member that lifted it. */
export function groupLifts(ranked: Ranked[], group: (id: string) => string | undefined): Map<string, NonNullable<ExplainedSets["group"]>> {
  const lifts = new Map<string, NonNullable<ExplainedSets["group"]>>();
  if (ranked.length < 2) return lifts;
  const low = ranked[ranked.length - 1].score;
  if (ranked[0].score - low <= 0) return lifts;
  // The two best members of each group: a tool's lift comes from the best member other than itself.
  const leaders = new Map<string, { first: Ranked; second?: Ranked }>();
  for (const hit of ranked) {
    const g = group(hit.id);
    if (g === undefined) continue;
    const entry = leaders.get(g);
    if (!entry) leaders.set(g, { first: hit });
    else if (!entry.second) entry.second = hit;
  }
  for (const hit of ranked) {
    const g = group(hit.id);
    const entry = g === undefined ? undefined : leaders.get(g);
    const other = entry && (entry.first.id === hit.id ? entry.second : entry.first);
    if (other) lifts.set(hit.id, { name: g!, member: other.id, lift: GROUP_LIFT * (other.score - low) });
  }
  return lifts;
}
