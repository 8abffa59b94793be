/**
 * Reads a file of records: a JSON array, a JSON object holding an array under a known key, JSONL, or YAML.
 * Shared by tool catalogs, documents and labelled queries, so every file format is parsed one way.
 */
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { extname } from "node:path";
import { ToolsearchError } from "../errors.js";

export type RecordFormat = "json" | "jsonl" | "yaml";

/** The format a path's extension names; `.json` content that is not valid JSON falls back to JSONL. */
export function formatOf(path: string): RecordFormat {
  const ext = extname(path).toLowerCase();
  if (ext === ".jsonl" || ext === ".ndjson") return "jsonl";
  if (ext === ".yaml" || ext === ".yml") return "yaml";
  return "json";
}

/** Reads a whole file as UTF-8 text, with an error that names the file when it cannot. */
export function readText(path: string): string {
  try {
    if (statSync(path).isDirectory()) throw new Error("it is a directory");
    return readFileSync(path, "utf8");
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolsearchError("file_unreadable", `${path}: cannot read file (${reason})`);
  }
}

function parseJsonl(path: string, text: string): unknown[] {
  const records: unknown[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      records.push(JSON.parse(line));
    } catch (error) {
      throw new ToolsearchError("file_parse", `${path}: line ${i + 1}: not valid JSON (${(error as Error).message})`);
    }
  });
  return records;
}

const require = createRequire(import.meta.url);

/** The YAML parser, loaded by the first YAML file: JSON readers (most runs) never need it. */
function parseYaml(text: string): unknown {
  return (require("yaml") as typeof import("yaml")).parse(text);
}

/** Reads a file that holds one JSON value; `file_unreadable` or `file_parse` (naming the file) when it cannot. */
export function readJsonFile(path: string): unknown {
  const text = readText(path);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ToolsearchError("file_parse", `${path}: not valid JSON (${(error as Error).message})`);
  }
}

export function parseStructured(path: string, text: string, format: "json" | "yaml"): unknown {
  try {
    return format === "json" ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    if (format === "json" && text.trimStart().startsWith("{") && text.includes("\n{")) return parseJsonl(path, text);
    const what = format === "json" ? "JSON" : "YAML";
    throw new ToolsearchError("file_parse", `${path}: not valid ${what} (${(error as Error).message})`);
  }
}

/**
 * Parses a file into its list of records. A top-level object must hold the list under one of `keys`
 * (e.g. `tools` for an MCP `tools/list` result).
 */
export function readRecords(path: string, keys: string[]): unknown[] {
  return parseRecords(path, readText(path), keys);
}

/** `readRecords` on text already in hand (an upload); `path` names it in messages and its extension picks the format. */
export function parseRecords(path: string, text: string, keys: string[]): unknown[] {
  const format = formatOf(path);
  if (format === "jsonl") return parseJsonl(path, text);
  const value = parseStructured(path, text, format);
  if (Array.isArray(value)) return value;
  if (typeof value === "object" && value !== null) {
    for (const key of keys) {
      const list = (value as Record<string, unknown>)[key];
      if (Array.isArray(list)) return list;
    }
  }
  const expected = keys.map((k) => `{"${k}": [...]}`).join(" or ");
  throw new ToolsearchError("file_parse", `${path}: expected a list of records (an array, ${expected}, or JSONL)`);
}
