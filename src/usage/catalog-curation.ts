/**
 * Curation in a catalog file (SPEC §17): a JSON or YAML catalog `{tools: […], synonyms: {…}, rules: {…}}` carries
 * its synonyms and pinned rules beside its tools (`rules` may also be the bare list of rules). Checked as the REST
 * routes check them, naming the file.
 *
 * @example
 * ```ts
 * const index = new ToolIndex(loadCatalogFile(path), { ...curationOfFile(path) });
 * ```
 */
import { formatOf, parseStructured, readText } from "../catalog/read-records.js";
import { checkRules, checkSynonyms, type Rules, type Synonyms } from "./curation.js";

export function curationOfFile(path: string, text?: string): { synonyms?: Synonyms; rules?: Rules } {
  const format = formatOf(path);
  if (format === "jsonl") return {};
  const value = parseStructured(path, text ?? readText(path), format);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  const { synonyms, rules } = value as Record<string, unknown>;
  const out: { synonyms?: Synonyms; rules?: Rules } = {};
  if (synonyms !== undefined) out.synonyms = checkSynonyms(synonyms, `${path}: synonyms`);
  if (rules !== undefined) out.rules = checkRules(Array.isArray(rules) ? { rules } : rules, `${path}: rules`);
  return out;
}
