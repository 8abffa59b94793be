/** Labelled queries (SPEC §3): JSONL `{id, query, relevant: [...]}`, every label a known item. */
import { parseRecords, readText } from "../catalog/read-records.js";
import { type Problem, refusedFile } from "../errors.js";

export interface LabelledQuery {
  id: string;
  query: string;
  relevant: string[];
}

/**
 * Reads a labelled-queries file. Refused whole, with every problem named, when a record lacks a field or names a
 * label that `known` does not hold.
 */
export function loadQueries(path: string, known: (label: string) => boolean): LabelledQuery[] {
  return parseQueries(path, readText(path), known);
}

/** `loadQueries` on text already in hand (an upload); `name` stands for the file in messages and picks the format. */
export function parseQueries(name: string, text: string, known: (label: string) => boolean): LabelledQuery[] {
  const path = name;
  const problems: Problem[] = [];
  const queries: LabelledQuery[] = [];
  parseRecords(path, text, ["queries"]).forEach((record, index) => {
    const r = (record ?? {}) as Record<string, unknown>;
    const name = typeof r.id === "string" ? r.id : undefined;
    const fail = (rule: string) => problems.push({ file: path, index, name, rule, message: rule });
    if (typeof r.id !== "string" || r.id === "") return fail("id must be a non-empty string");
    if (typeof r.query !== "string" || r.query.trim() === "") return fail("query must be a non-empty string");
    if (!Array.isArray(r.relevant) || r.relevant.length === 0 || !r.relevant.every((x) => typeof x === "string")) {
      return fail("relevant must be a non-empty array of strings");
    }
    const unknown = (r.relevant as string[]).filter((label) => !known(label));
    if (unknown.length) return fail(`relevant names ${unknown.map((u) => JSON.stringify(u)).join(", ")}, not in the catalog or document set`);
    queries.push({ id: r.id, query: r.query, relevant: r.relevant as string[] });
  });
  if (problems.length) throw refusedFile("queries_invalid", path, problems);
  return queries;
}
