/**
 * Curation of one collection: synonyms (applied when a query is analyzed) and pinned-result rules (applied to the
 * final ranking). Both are plain data checked here once, at every boundary that accepts them (REST, catalog files,
 * `ToolIndex` options), so each surface refuses the same mistakes with the same `curation_invalid` message.
 *
 * @example
 * ```ts
 * checkSynonyms({ groups: [["pto", "vacation", "leave"]], oneWay: { k8s: ["kubernetes"] } }, "synonyms");
 * checkRules({ rules: [{ query: "refund*", pin: ["process_refund"] }] }, "rules");
 * ```
 */
import { type Problem, ToolsearchError } from "../errors.js";

/** Words that mean the same (`groups`, each word expands to the others) or imply others (`oneWay`, key → values). */
export interface Synonyms {
  groups?: string[][];
  oneWay?: Record<string, string[]>;
}

/** One pinned-result rule: queries matching `query` (`*` matches any run of characters) get `pin` first, in order. */
export interface PinRule {
  query: string;
  pin: string[];
}

export interface Rules {
  rules: PinRule[];
}

/** The per-collection switch of the learned signal (on by default). */
export interface Learning {
  enabled: boolean;
}

/** Every kind of curation a collection keeps, in the order the service reads them. */
export const CURATION_KINDS = ["synonyms", "rules", "learning"] as const;

/** Validates the learning switch. */
export function checkLearning(value: unknown, source: string): Learning {
  if (!isObject(value) || typeof value.enabled !== "boolean" || Object.keys(value).length !== 1) {
    throw refused(source, [{ file: source, index: 0, rule: "must be {\"enabled\": true|false}", message: "must be {\"enabled\": true|false}" }]);
  }
  return { enabled: value.enabled };
}

/** Limits that keep curation a small, hand-edited thing (and a request body small). */
/**
 * `ruleQueryChars`: rules are matched against queries of at most this many characters (after spacing is collapsed);
 * a longer query gets no pinned results. Rules are written for the short requests people type, and the cap bounds a
 * search's rule work whatever the rules are: at most `rules` × (`ruleQueryChars` + `wordChars`) × 2 comparisons
 * (each `*`-separated piece is found with KMP), about 1.2 million, a few milliseconds (bench/rules.ts).
 */
export const CURATION_LIMITS = { groups: 1000, words: 50, wordChars: 100, rules: 1000, pins: 10, ruleQueryChars: 512 } as const;

/** Validates synonyms; throws `curation_invalid` naming every broken entry. */
export function checkSynonyms(value: unknown, source: string): Synonyms {
  const problems: Problem[] = [];
  const fail = (name: string, rule: string) => problems.push({ file: source, index: 0, name, rule, message: rule });
  if (!isObject(value)) throw refused(source, [{ file: source, index: 0, rule: "must be an object {groups?, oneWay?}", message: "must be an object {groups?, oneWay?}" }]);
  for (const key of Object.keys(value)) if (key !== "groups" && key !== "oneWay") fail(key, `unknown field ${JSON.stringify(key)}: use groups and oneWay`);
  const { groups, oneWay } = value as Record<string, unknown>;
  if (groups !== undefined) {
    if (!Array.isArray(groups) || groups.length > CURATION_LIMITS.groups) fail("groups", `groups must be an array of at most ${CURATION_LIMITS.groups} word lists`);
    else groups.forEach((group, i) => checkWords(group, `groups[${i}]`, 2, fail));
  }
  if (oneWay !== undefined) {
    if (!isObject(oneWay) || Object.keys(oneWay).length > CURATION_LIMITS.groups) fail("oneWay", `oneWay must be an object of at most ${CURATION_LIMITS.groups} words, each to a word list`);
    else for (const [word, targets] of Object.entries(oneWay)) {
      checkWord(word, `oneWay key ${JSON.stringify(word)}`, fail);
      checkWords(targets, `oneWay[${JSON.stringify(word)}]`, 1, fail);
    }
  }
  if (problems.length) throw refused(source, problems);
  const out: Synonyms = {};
  if (groups !== undefined) out.groups = groups as string[][];
  if (oneWay !== undefined) out.oneWay = oneWay as Record<string, string[]>;
  return out;
}

/** Validates pinned-result rules; throws `curation_invalid` naming every broken rule. */
export function checkRules(value: unknown, source: string): Rules {
  const problems: Problem[] = [];
  if (!isObject(value) || !Array.isArray(value.rules)) {
    throw refused(source, [{ file: source, index: 0, rule: "must be an object {rules: [...]}", message: "must be an object {rules: [...]}" }]);
  }
  const rules = value.rules as unknown[];
  if (rules.length > CURATION_LIMITS.rules) problems.push({ file: source, index: 0, rule: `at most ${CURATION_LIMITS.rules} rules`, message: `at most ${CURATION_LIMITS.rules} rules` });
  rules.forEach((rule, index) => {
    const fail = (message: string) => problems.push({ file: source, index, name: `rules[${index}]`, rule: message, message });
    if (!isObject(rule)) return fail("a rule must be an object {query, pin}");
    for (const key of Object.keys(rule)) if (key !== "query" && key !== "pin") fail(`unknown field ${JSON.stringify(key)}: use query and pin`);
    if (typeof rule.query !== "string" || rule.query.trim() === "" || rule.query.length > CURATION_LIMITS.wordChars) {
      fail(`query must be a non-empty pattern of at most ${CURATION_LIMITS.wordChars} characters`);
    }
    const pin = rule.pin;
    if (!Array.isArray(pin) || pin.length === 0 || pin.length > CURATION_LIMITS.pins || !pin.every((p) => typeof p === "string" && p !== "")) {
      fail(`pin must be a list of 1 to ${CURATION_LIMITS.pins} tool names`);
    }
  });
  if (problems.length) throw refused(source, problems);
  return { rules: rules.map((r) => ({ query: (r as PinRule).query, pin: [...(r as PinRule).pin] })) };
}

function checkWords(value: unknown, name: string, min: number, fail: (name: string, rule: string) => void): void {
  if (!Array.isArray(value) || value.length < min || value.length > CURATION_LIMITS.words) {
    fail(name, `must be a list of ${min} to ${CURATION_LIMITS.words} words`);
    return;
  }
  value.forEach((word, i) => checkWord(word, `${name}[${i}]`, fail));
}

function checkWord(word: unknown, name: string, fail: (name: string, rule: string) => void): void {
  if (typeof word !== "string" || word.trim() === "" || word.length > CURATION_LIMITS.wordChars) {
    fail(name, `must be a non-empty word or phrase of at most ${CURATION_LIMITS.wordChars} characters`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function refused(source: string, problems: Problem[]): ToolsearchError {
  const first = problems[0];
  const where = first.name ? `${first.name}: ` : "";
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  return new ToolsearchError("curation_invalid", `${source}: ${where}${first.message}${more}.`, { problems });
}
