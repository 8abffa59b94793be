/** Loading a catalog file: parse, check every item, and return all tools or refuse the file whole. */
import { refusedFile } from "../errors.js";
import { readRecords } from "./read-records.js";
import type { Tool } from "./tool.js";
import { checkCatalog } from "./validate.js";

/** Reads and validates a catalog (JSON array, `{tools:[…]}`, JSONL or YAML; any mix of shapes). */
export function loadCatalogFile(path: string): Tool[] {
  return normalizeTools(readRecords(path, ["tools"]), path);
}

/** Validates tools given in memory; `source` names them in errors (a file path, or "tools"). */
export function normalizeTools(items: unknown[], source = "tools"): Tool[] {
  const { tools, problems } = checkCatalog(items, source);
  if (problems.length) throw refusedFile("catalog_invalid", source, problems);
  return tools;
}
