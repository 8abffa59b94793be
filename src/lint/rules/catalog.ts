/**
 * Catalog rules: problems that only show between tools — duplicate names and definitions, look-alike pairs that
 * search cannot tell apart, and CRUD groups that spell their id parameter differently.
 */
import type { LintContext, LintRule, LintTool, RuleHit } from "../types.js";
import { differentActions, mentionsName, nameWords, singular } from "../words.js";

export const catalogDuplicateName: LintRule = {
  id: "catalog/duplicate-name",
  severity: "error",
  rationale: "Tool names must be unique: the APIs refuse a request with two tools of one name, and calls cannot be routed.",
  fix: "Rename one of the tools, or drop the copy.",
  checkCatalog({ tools }) {
    const first = new Map<string, LintTool>();
    const hits: RuleHit[] = [];
    for (const tool of tools) {
      if (tool.name === undefined) continue;
      const seen = first.get(tool.name);
      if (seen) hits.push({ tool: tool.index, message: `name already used by item ${seen.index}` });
      else first.set(tool.name, tool);
    }
    return hits;
  },
};

function schemaKey(schema: unknown): string {
  return JSON.stringify(schema ?? null, (_key, value) =>
    value && typeof value === "object" && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : value);
}

export const catalogDuplicateDefinition: LintRule = {
  id: "catalog/duplicate-definition",
  severity: "warning",
  rationale: "Two tools with the same description and schema under different names split the model's choice and the search ranking for nothing.",
  fix: "Keep one of them, or say in each description how they differ.",
  checkCatalog({ tools }) {
    // Group by description first: serializing schemas is only worth it for the few tools that share one.
    const byDescription = new Map<string, LintTool[]>();
    for (const tool of tools) {
      const description = tool.description.trim().replace(/\s+/g, " ").toLowerCase();
      if (!description || tool.shapeError) continue;
      const group = byDescription.get(description);
      if (group) group.push(tool);
      else byDescription.set(description, [tool]);
    }
    const hits: RuleHit[] = [];
    for (const group of byDescription.values()) {
      if (group.length < 2) continue;
      const first = new Map<string, LintTool>();
      for (const tool of group) {
        const key = schemaKey(tool.schema);
        const seen = first.get(key);
        if (seen && seen.name !== tool.name) hits.push({ tool: tool.index, message: `same description and schema as ${seen.id}` });
        else if (!seen) first.set(key, tool);
      }
    }
    return hits.sort((x, y) => x.tool - y.tool);
  },
};

/** Both tools must score at least this close to themselves for each other's text to be called look-alikes. */
export const CONFUSABLE_CLOSENESS = 0.6;

/** Stems that set nothing apart: a description that differs from another only by these says nothing new. */
const FILLER_TERMS = new Set([
  "data", "info", "inform", "get", "return", "endpoint", "api", "tool", "use", "request", "call", "fetch", "retriev",
  "provid", "allow", "function", "given", "v1", "v2", "v3",
]);

/** Informative terms of `a`'s description that `b`'s lacks. */
function termsOnlyIn(a: Set<string>, b: Set<string>): string[] {
  return [...a].filter((term) => !b.has(term) && !FILLER_TERMS.has(term));
}

/** A description that adds at most this many informative words to the other's still does not set itself apart. */
const MAX_ADDED_TERMS = 2;

function bigrams(terms: string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 1; i < terms.length; i++) out.add(`${terms[i - 1]} ${terms[i]}`);
  return out;
}

/** Whether two names have the same words but for at most one (plurals folded): get_team / get_teams. */
function nearlySameName(a: LintTool, b: LintTool): boolean {
  const wordsA = new Set(a.words.map(singular));
  const wordsB = new Set(b.words.map(singular));
  const onlyA = [...wordsA].filter((w) => !wordsB.has(w)).length;
  const onlyB = [...wordsB].filter((w) => !wordsA.has(w)).length;
  return onlyA + onlyB <= 1;
}

/** Bigrams of informative terms only: word order that filler words alone make different does not count. */
function informativeBigrams(terms: string[]): Set<string> {
  return bigrams(terms.filter((t) => !FILLER_TERMS.has(t)));
}

/**
 * Whether the two tools set themselves apart: by different actions in their names, by one naming the other, or by
 * descriptions that each say something the other does not. A pair is not set apart when one description adds
 * nothing to the other's and the other adds at most a couple of words (or both are empty); words in a different
 * order ("secret key to mnemonic" / "mnemonic to secret key") do set them apart.
 */
function differentiated(a: LintTool, b: LintTool): boolean {
  if (differentActions(a, b)) return true;
  if (mentionsName(a.description, b.localName) || mentionsName(b.description, a.localName)) return true;
  // Two empty descriptions are reported by description/missing; the pair only adds to that when the names nearly match.
  if (a.description.trim() === "" && b.description.trim() === "") return !nearlySameName(a, b);
  const listA = a.descriptionTerms;
  const listB = b.descriptionTerms;
  const termsA = new Set(listA);
  const termsB = new Set(listB);
  const extraA = termsOnlyIn(termsA, termsB);
  const extraB = termsOnlyIn(termsB, termsA);
  const onlyA = extraA.length;
  const onlyB = extraB.length;
  if (Math.min(onlyA, onlyB) > 0 || Math.max(onlyA, onlyB) > MAX_ADDED_TERMS) return true;
  // A description whose extra words spell out what its own name adds (get_players_by_country: "… by country")
  // says how the tool differs.
  if (explainsOwnName(extraA, a, b) || explainsOwnName(extraB, b, a)) return true;
  // Same words, different order ("secret key to mnemonic" / "mnemonic to secret key") still sets them apart.
  const pairsA = informativeBigrams(listA);
  const pairsB = informativeBigrams(listB);
  return [...pairsA].some((p) => !pairsB.has(p)) && [...pairsB].some((p) => !pairsA.has(p));
}

function explainsOwnName(extra: string[], self: LintTool, other: LintTool): boolean {
  const otherName = new Set(other.nameTerms);
  return extra.some((term) => self.nameTerms.includes(term) && !otherName.has(term));
}

/** Same description and schema: reported by catalog/duplicate-definition instead. */
function sameDefinition(a: LintTool, b: LintTool): boolean {
  const norm = (t: LintTool) => t.description.trim().replace(/\s+/g, " ").toLowerCase();
  return norm(a) !== "" && norm(a) === norm(b) && schemaKey(a.schema) === schemaKey(b.schema);
}

export const catalogConfusable: LintRule = {
  id: "catalog/confusable",
  severity: "warning",
  rationale: "Two tools that are each other's best search match, with descriptions that say the same, cannot be told apart by search or by the model.",
  fix: "Say in each description what sets it apart (scope, input, output) and when to use the other one, or merge them.",
  checkCatalog(context) {
    const neighbours = context.neighbours();
    const hits: RuleHit[] = [];
    for (const [index, near] of neighbours) {
      const back = neighbours.get(near.other);
      // Each pair once, from its lower index; mutual best matches only.
      if (!back || back.other !== index || index > near.other) continue;
      if (near.closeness < CONFUSABLE_CLOSENESS || back.closeness < CONFUSABLE_CLOSENESS) continue;
      const a = context.tools[index];
      const b = context.tools[near.other];
      if (a.name === b.name || sameDefinition(a, b) || differentiated(a, b)) continue;
      const message = (other: LintTool) => `hard to tell apart from ${other.id}: each is the other's best search match and neither description says what the other's does not`;
      hits.push({ tool: a.index, message: message(b) }, { tool: b.index, message: message(a) });
    }
    return hits.sort((x, y) => x.tool - y.tool);
  },
};

/** Verbs of the CRUD family: tools that act on one resource and usually take its id. */
const CRUD_VERBS = new Set([
  "get", "read", "fetch", "retrieve", "show", "view", "describe", "list", "create", "add", "insert", "new", "update",
  "edit", "patch", "modify", "put", "set", "upsert", "delete", "remove", "destroy", "archive", "restore",
]);

/** The resource a CRUD-named tool acts on (`get_user_by_id` → user), or undefined when the name is not CRUD-shaped. */
export function crudResource(tool: LintTool): string | undefined {
  const words = tool.words;
  if (words.length < 2 || !CRUD_VERBS.has(words[0])) return undefined;
  const rest: string[] = [];
  for (let i = 1; i < words.length; i++) {
    if (words[i] === "by" && i + 1 < words.length) { i++; continue; } // get_user_by_email → user
    rest.push(singular(words[i]));
  }
  return rest.length ? rest.join("_") : undefined;
}

/** The parameter that identifies the resource: `id`, or `<resource>_id` spelled any way. */
function idParam(tool: LintTool, resource: string): string | undefined {
  const spellings = new Set(["id", ...resource.split("_").map((w) => `${w}id`), `${resource.replace(/_/g, "")}id`]);
  const candidates = tool.params.filter((p) => spellings.has(nameWords(p.name).join("")));
  return candidates.length === 1 ? candidates[0].name : undefined;
}

export const catalogCrudIds: LintRule = {
  id: "catalog/crud-id-params",
  severity: "warning",
  rationale: "When get_user takes user_id but update_user takes userId and delete_user takes id, the model carries the wrong key from one call to the next.",
  fix: "Spell the id parameter the same way in every tool of the resource (e.g. user_id everywhere).",
  checkCatalog({ tools }) {
    const groups = new Map<string, { tool: LintTool; param: string }[]>();
    for (const tool of tools) {
      const resource = crudResource(tool);
      const param = resource && idParam(tool, resource);
      if (!resource || !param) continue;
      const key = `${tool.namespace}\u0000${resource}`;
      const group = groups.get(key) ?? [];
      group.push({ tool, param });
      groups.set(key, group);
    }
    const hits: RuleHit[] = [];
    for (const members of groups.values()) {
      const counts = new Map<string, number>();
      for (const m of members) counts.set(m.param, (counts.get(m.param) ?? 0) + 1);
      if (counts.size < 2) continue;
      // The most common spelling wins; on a tie, the one the catalog uses first.
      const majority = [...counts].sort((a, b) => b[1] - a[1])[0][0];
      const users = members.filter((m) => m.param === majority).map((m) => m.tool.id);
      for (const m of members) {
        if (m.param === majority) continue;
        hits.push({ tool: m.tool.index, message: `takes "${m.param}" where ${users.join(", ")} ${users.length === 1 ? "takes" : "take"} "${majority}" for the same id` });
      }
    }
    return hits;
  },
};

export const CATALOG_RULES: LintRule[] = [catalogDuplicateName, catalogDuplicateDefinition, catalogConfusable, catalogCrudIds];
