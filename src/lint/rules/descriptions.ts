/**
 * Description rules. The description is what a model reads to decide whether to call a tool: it should say what the
 * tool does, when to use it, what it returns and where it stops. The element checks (returns, usage, limits) only
 * look at descriptions long enough to hold them, and only at tools where that element is not obvious from the name,
 * so that short descriptions of self-evident tools (get_user, create_user) pass.
 */
import { hasOwnDescription, isConstrained, isMentionedByTool } from "../params.js";
import type { LintRule, LintTool } from "../types.js";
import { differentActions, mentionsName, nameWords, wordCount } from "../words.js";

/** Fewer words than this cannot say what a tool does and on what. */
export const MIN_DESCRIPTION_WORDS = 5;
/** More characters than this cost context on every load and bury the first sentence. */
export const MAX_DESCRIPTION_CHARS = 2000;
/** A neighbour this close (relative score) makes "when to use this one" worth saying. */
const USAGE_NEIGHBOUR_CLOSENESS = 0.8;

function hasBody(tool: LintTool): boolean {
  return wordCount(tool.description) >= MIN_DESCRIPTION_WORDS;
}

function firstWord(tool: LintTool): string {
  return tool.words.find((w) => !/^\d+$/.test(w)) ?? "";
}

export const descriptionMissing: LintRule = {
  id: "description/missing",
  severity: "warning",
  rationale: "Without a description the model has only the name to decide when to call the tool, and search has little to match.",
  fix: "Write a description: what the tool does, when to use it, what it returns.",
  checkTool(tool) {
    if (tool.shapeError) return [];
    if (tool.rawDescription !== undefined && typeof tool.rawDescription !== "string") return ["description is not a string"];
    return tool.description.trim() === "" ? ["no description"] : [];
  },
};

export const descriptionTooShort: LintRule = {
  id: "description/too-short",
  severity: "warning",
  rationale: "A description of a few words rarely says more than the name, so the model cannot tell the tool from its look-alikes.",
  fix: `Say what the tool does and on what, when to use it and what it returns (at least ${MIN_DESCRIPTION_WORDS} words).`,
  checkTool(tool) {
    const words = wordCount(tool.description);
    if (words === 0 || words >= MIN_DESCRIPTION_WORDS) return [];
    return [`description has ${words} word${words === 1 ? "" : "s"}: ${JSON.stringify(tool.description.trim())}`];
  },
};

export const descriptionTooLong: LintRule = {
  id: "description/too-long",
  severity: "info",
  rationale: "Very long descriptions cost context on every request that loads the tool and bury what it does under detail.",
  fix: `Keep the description under ${MAX_DESCRIPTION_CHARS} characters; move parameter detail into parameter descriptions.`,
  checkTool(tool) {
    const length = tool.description.length;
    return length > MAX_DESCRIPTION_CHARS ? [`description has ${length} characters`] : [];
  },
};

/** Verbs whose output is not evident from the name: the description has to say what comes back. */
const COMPUTING_VERBS = new Set(`
  calculate compute analyze analyse evaluate estimate predict forecast classify detect validate verify check query run
  execute invoke process resolve score rank compare measure scan inspect test lookup recognize identify parse
`.split(/\s+/).filter(Boolean));

const RETURNS_CUE = /\b(return(s|ed|ing)?|output(s|ting)?|results?|respon(d|ds|se|ses)|yields?|produces?|gives?|gets?|provides?|shows?|highlight(s|ing)?|reports?|contain(s|ing)?|includ(es|ing)|list of|array of|object (with|of|containing)|into|json|true|false|whether|if|boolean|score|status)\b|→|->/i;

export const descriptionNoReturns: LintRule = {
  id: "description/no-returns",
  severity: "info",
  rationale: "For tools that compute or analyse, the model must know what comes back to plan its next step; the name does not say.",
  fix: "Add a sentence on the result, e.g. \"Returns {start, end} as ISO 8601 dates.\"",
  checkTool(tool) {
    if (!hasBody(tool) || !COMPUTING_VERBS.has(firstWord(tool))) return [];
    return RETURNS_CUE.test(tool.description) ? [] : ["description does not say what the tool returns"];
  },
};

/** Phrases that tell the model when (or when not) to pick a tool, or how it differs from others. */
const USAGE_CUE = /\b(use (this|it|when|for|to|only|with|instead|before|after)|used (to|for|when)|when(ever)? (you|the user|a user|an?|the)|if (you|the user)|instead|rather than|unlike|only|do(es)? not|don'?t|not for|for example|e\.g\.|such as|must|should|in order to|useful (for|when)|ideal for|best for|designed (for|to)|intended for|first|then|before|after|requires?)\b/i;

export const descriptionNoUsage: LintRule = {
  id: "description/no-usage",
  severity: "info",
  rationale: "When a tool has a close look-alike on the same server, the model needs to be told when this one is the right one and when it is not.",
  fix: "Add when to use the tool (and when to use its look-alike instead), e.g. \"Use for …; for … use search_orders.\"",
  checkTool(tool, context) {
    if (!hasBody(tool) || USAGE_CUE.test(tool.description)) return [];
    const near = context.neighbours().get(tool.index);
    if (!near || near.closeness < USAGE_NEIGHBOUR_CLOSENESS) return [];
    const other = context.tools[near.other];
    // Look-alikes on other servers are catalog/confusable's business: this tool's author can only fix its own server.
    if (other.namespace !== tool.namespace) return [];
    // Different actions (list vs create), or a description that names the other tool, already tell them apart.
    if (differentActions(tool, other) || mentionsName(tool.description, other.localName)) return [];
    return [`a close look-alike exists (${other.id}) but the description does not say when to use this tool`];
  },
};

/** Verbs of tools that return a collection whose size should be bounded. */
// `list` is left out (most list tools enumerate small, owned sets: sessions, databases, projects), and so are `query`
// and `lookup`, which as often fetch one record as many.
const COLLECTION_VERBS = new Set(["search", "find", "browse", "scan"]);
/** Signs that a tool fetches one record by its identifier, which needs no bound. */
const SINGLE_RECORD_CUE = /\b(by|with|for|from|based on) (its |the |an? )?(\w+[ _])?(id|uid|uuid|identifier)\b|\ba (single|specific)\b/i;
/** Parameter names (as joined words) that bound or page a result set. */
const BOUNDING_PARAM = /^(limit|max|maxresults?|maxitems|count|num|numresults?|n|k|topk|topn|top|size|pagesize|perpage|page|pagetoken|offset|cursor|first|last|rows|take|skip|start|after|before|nextpagetoken|pagenumber|pagination|results|resultsperpage|numberofresults|per)$/;
const BOUND_CUE = /\b(at most|up to|max(imum)?|no more than|limit(s|ed)?|paginat\w*|page|count|max_results|first \d+|top \d+|\d+ (results|items|records|entries))\b/i;

export const descriptionNoLimits: LintRule = {
  id: "description/no-limits",
  severity: "info",
  rationale: "A search tool with no stated bound can flood the context; the model should know how much comes back and how to page.",
  fix: "Add a limit/page parameter with bounds, or state the bound (\"returns at most 50 results\").",
  checkTool(tool) {
    if (!hasBody(tool) || !COLLECTION_VERBS.has(firstWord(tool))) return [];
    if (tool.words.includes("id") || SINGLE_RECORD_CUE.test(tool.description)) return [];
    const bounded = tool.params.some((p) => nameWords(p.name).some((w) => BOUNDING_PARAM.test(w)) || BOUNDING_PARAM.test(nameWords(p.name).join("")));
    if (bounded || BOUND_CUE.test(tool.description)) return [];
    return ["neither a parameter nor the description bounds how many results come back"];
  },
};

/** Tools with fewer parameters than this are simple enough for the schema to speak for itself. */
const MIN_PARAMS_FOR_MENTION = 2;

export const descriptionParamsUnmentioned: LintRule = {
  id: "description/params-unmentioned",
  severity: "info",
  rationale: "When neither the description nor the schema explains the parameters, the model has only their names to go on.",
  fix: "Mention the key parameters and their formats in the description (with an example), or describe them in the schema.",
  checkTool(tool, context) {
    if (!hasBody(tool) || tool.params.length < MIN_PARAMS_FOR_MENTION) return [];
    if (tool.params.some((p) => isMentionedByTool(tool, p, context.analyzer))) return [];
    const selfExplained = tool.params.filter((p) => hasOwnDescription(p.schema) || isConstrained(p.schema)).length;
    if (selfExplained * 2 >= tool.params.length) return [];
    return [`the description names none of the ${tool.params.length} parameters, and ${tool.params.length - selfExplained} of them have no description or constraint`];
  },
};

export const DESCRIPTION_RULES: LintRule[] = [
  descriptionMissing, descriptionTooShort, descriptionTooLong, descriptionNoReturns, descriptionNoUsage,
  descriptionNoLimits, descriptionParamsUnmentioned,
];
