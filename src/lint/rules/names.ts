/** Name rules: the API's character rule, the verb_noun shape, vague names, and one naming style per server. */
import { nameProblem } from "../../catalog/validate.js";
import type { LintRule, LintTool, RuleHit } from "../types.js";
import { isVerb } from "../words.js";

/**
 * Words that say nothing about what a tool acts on. A name made only of these (`process`, `do_thing`, `api_call`,
 * `get_data`, `handle_request`) leaves the model guessing.
 */
const VAGUE_WORDS = new Set(`
  process processor data helper helpers do thing things stuff api call calls handle handler run execute perform
  manage manager util utils utility utilities misc tool tools function func fn action actions request requests info
  information generic general main temp tmp foo bar baz my object operation op something anything
`.split(/\s+/).filter(Boolean));

export const namePattern: LintRule = {
  id: "name/pattern",
  severity: "error",
  rationale: "Anthropic's and OpenAI's APIs refuse a tool whose name breaks ^[a-zA-Z0-9_-]{1,64}$, so the whole request fails.",
  fix: "Rename the tool with letters, digits, _ and - only, at most 64 characters.",
  checkTool(tool) {
    if (tool.shapeError && tool.name === undefined) return [];
    const problem = nameProblem(tool.name);
    return problem ? [problem] : [];
  },
};

export const nameVerbNoun: LintRule = {
  id: "name/verb-noun",
  severity: "info",
  rationale: "A verb_noun name (search_products, create_invoice) tells the model the action and its object before it reads anything else.",
  fix: "Start the name with the action and follow with what it acts on, e.g. get_user_profile.",
  checkTool(tool) {
    const words = tool.words.filter((w) => !/^v?\d+$/.test(w));
    if (words.length === 0 || isVague(tool.words)) return [];
    // One leading service word is a common namespace (figma_get_file, browser_navigate): the verb may come second.
    const verbAt = words.findIndex((w) => isVerb(w));
    if (verbAt < 0 || verbAt > 1) return [`"${tool.localName}" does not start with a verb (nor has one after a service prefix)`];
    if (words.length === 1) return [`"${tool.localName}" names an action but not what it acts on`];
    return [];
  },
};

/** Whether a name's words are all vague (`process`, `do_thing`, `api_call`, `handle_request`). */
function isVague(words: string[]): boolean {
  const meaningful = words.filter((w) => !/^v?\d+$/.test(w));
  return meaningful.length > 0 && meaningful.every((w) => VAGUE_WORDS.has(w));
}

export const nameVague: LintRule = {
  id: "name/vague",
  severity: "warning",
  rationale: "Names such as process, data, helper, do_thing or api_call give neither a model nor a search engine anything to match.",
  fix: "Name the specific action and object (e.g. api_call → get_exchange_rate).",
  checkTool(tool) {
    const words = tool.words.filter((w) => !/^v?\d+$/.test(w));
    // Only names made entirely of empty words: get_data or drop_function may be precise inside their server.
    if (words.length === 0 || !isVague(words)) return [];
    return [`"${tool.localName}" is too generic to say what the tool does`];
  },
};

/** The naming convention of a name, or undefined for a single lower-case word (which fits every convention). */
export function nameStyle(localName: string): string | undefined {
  if (/^[a-z0-9]+$/.test(localName)) return undefined;
  if (/^[a-z0-9]+(_[a-z0-9]+)+$/.test(localName)) return "snake_case";
  if (/^[a-z0-9]+(-[a-z0-9]+)+$/.test(localName)) return "kebab-case";
  if (/^[a-z][a-z0-9]*([A-Z][a-z0-9]*)+$/.test(localName)) return "camelCase";
  if (/^[A-Z][a-z0-9]+([A-Z][a-z0-9]*)*$/.test(localName)) return "PascalCase";
  if (/^[A-Z0-9]+(_[A-Z0-9]+)*$/.test(localName)) return "UPPER_CASE";
  return "mixed";
}

/** Smallest group (a server, or the whole catalog) where a style majority is worth enforcing. */
const MIN_STYLE_GROUP = 3;

export const nameStyleRule: LintRule = {
  id: "name/style",
  severity: "info",
  rationale: "Tools of one server that mix snake_case and camelCase make the model guess the spelling of names and arguments.",
  fix: "Rename the tool in the convention most of its neighbours use.",
  checkCatalog({ tools }) {
    const groups = new Map<string, { tool: LintTool; style: string }[]>();
    for (const tool of tools) {
      const style = tool.name && !nameProblem(tool.name) ? nameStyle(tool.localName) : undefined;
      if (!style) continue;
      const group = groups.get(tool.namespace) ?? [];
      group.push({ tool, style });
      groups.set(tool.namespace, group);
    }
    const hits: RuleHit[] = [];
    for (const members of groups.values()) {
      if (members.length < MIN_STYLE_GROUP) continue;
      const counts = new Map<string, number>();
      for (const m of members) counts.set(m.style, (counts.get(m.style) ?? 0) + 1);
      const [dominant, count] = [...counts].sort((a, b) => b[1] - a[1])[0];
      // Only a clear majority defines the convention; a 50/50 split has none to point to.
      if (count * 2 <= members.length || dominant === "mixed") continue;
      for (const m of members) {
        if (m.style === dominant) continue;
        hits.push({ tool: m.tool.index, message: `"${m.tool.localName}" is ${m.style} where ${count} of ${members.length} names${m.tool.namespace ? ` of ${m.tool.namespace}` : ""} are ${dominant}` });
      }
    }
    return hits;
  },
};

export const NAME_RULES: LintRule[] = [namePattern, nameVerbNoun, nameVague, nameStyleRule];
