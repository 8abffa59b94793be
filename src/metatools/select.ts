/**
 * `select:name1,name2` queries: clients modelled on Claude Code load tools they already know by name with a search
 * query of this form. Every `tool_search` we serve reads it the same way: exactly the named tools, in the order
 * given; a name the catalog does not hold is answered with the closest names rather than silently dropped.
 *
 * @example
 * ```ts
 * parseSelect("select:get_weather, get_forecast"); // ["get_weather", "get_forecast"]
 * resolveSelect(["get_weather", "get_wether"], index.names());
 * // { found: ["get_weather"], unknown: [{ name: "get_wether", close: ["get_weather"] }] }
 * ```
 */
import { closestNames } from "../text/suggest.js";

const PREFIX = /^select:/i;
/** Most names one `select:` query may load: a request for more is a mistake, not a lookup. */
export const MAX_SELECT_NAMES = 50;

/** A `select:` query's outcome: names the catalog holds, and the others with their closest names. */
export interface Selection {
  found: string[];
  unknown: { name: string; close: string[] }[];
}

/** The names of a `select:` query (trimmed, without repeats), or undefined when the query is not one. */
export function parseSelect(query: string): string[] | undefined {
  const trimmed = query.trim();
  if (!PREFIX.test(trimmed)) return undefined;
  const names = trimmed.replace(PREFIX, "").split(",").map((n) => n.trim()).filter((n) => n.length > 0);
  return [...new Set(names)];
}

/** Splits the names into those among `known` and the others (with up to 3 close names each). */
export function resolveSelect(names: string[], known: Iterable<string>): Selection {
  const catalog = new Set(known);
  const selection: Selection = { found: [], unknown: [] };
  for (const name of names) {
    if (catalog.has(name)) selection.found.push(name);
    else selection.unknown.push({ name, close: closestNames(name, catalog) });
  }
  return selection;
}

/** One sentence per unknown name, for the text part of an answer; "" when every name was found. */
export function unknownNamesNote(selection: Selection): string {
  return selection.unknown
    .map(({ name, close }) => `No tool is named ${JSON.stringify(name)}${close.length ? `; close names: ${close.join(", ")}` : ""}.`)
    .join(" ");
}

/** What to tell the model when `select:` named nothing usable. */
export function emptySelectMessage(): string {
  return `A select query names the tools to load, e.g. "select:get_weather,get_forecast" (at most ${MAX_SELECT_NAMES} names).`;
}
