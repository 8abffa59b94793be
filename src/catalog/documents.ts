/**
 * Loading a knowledge base (SPEC §3): JSONL (or a JSON/YAML list) of `{id, title, body, url?}`, or a folder of
 * Markdown files whose front matter gives `id` and `title` (else the file's path and its first heading). Every
 * document is checked; a set with any problem is refused whole, naming the file, the item and the rule.
 *
 * @example
 * ```ts
 * const docs = loadDocuments("kb.jsonl");         // or loadDocuments("help-center/") for Markdown files
 * docs[0]; // { id: "kb-refunds", title: "Refund policy", body: "Refunds are …" }
 * ```
 */
import { readdirSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { parse as parseYaml } from "yaml";
import { type Problem, refusedFile, ToolsearchError } from "../errors.js";
import { readRecords, readText } from "./read-records.js";

/** One article of a knowledge base. */
export interface Document {
  /** Stable id, unique in the set; what `read` takes. */
  id: string;
  /** What the article is about (non-empty). */
  title: string;
  /** The full text (plain text or Markdown). */
  body: string;
  /** Where the article lives, when known; used as the citation source. */
  url?: string;
}

/** The extensions read from a Markdown folder. */
const MARKDOWN_EXTENSIONS = new Set([".md", ".markdown", ".mdx"]);

/** Loads documents from a JSONL/JSON/YAML file or a folder of Markdown files. Refuses a bad set whole. */
export function loadDocuments(path: string): Document[] {
  let isFolder = false;
  try {
    isFolder = statSync(path).isDirectory();
  } catch (error) {
    throw new ToolsearchError("file_unreadable", `${path}: cannot read documents (${(error as Error).message})`);
  }
  return isFolder ? loadMarkdownFolder(path) : checkDocuments(readRecords(path, ["documents", "docs"]), path);
}

/**
 * Validates documents given in memory (`source` names them in errors). Ids may be strings or whole numbers (turned
 * into strings); titles must be non-empty; bodies must be strings; ids must be unique.
 */
export function checkDocuments(items: unknown[], source = "documents"): Document[] {
  const problems: Problem[] = [];
  const documents: Document[] = [];
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    const result = checkDocument(item, index, source);
    if ("problem" in result) return problems.push(result.problem);
    const first = seen.get(result.id);
    if (first !== undefined) {
      const rule = "ids must be unique";
      return problems.push({ file: source, index, name: result.id, rule, message: `${rule}: same id as item ${first}` });
    }
    seen.set(result.id, index);
    documents.push(result);
  });
  if (problems.length) throw refusedFile("documents_invalid", source, problems);
  return documents;
}

/** Checks one document; `index` is its position in the set (for messages). */
export function checkDocument(item: unknown, index: number, source = "documents"): Document | { problem: Problem } {
  const fail = (rule: string, name?: string) => ({ problem: { file: source, index, name, rule, message: rule } });
  if (typeof item !== "object" || item === null || Array.isArray(item)) return fail("a document must be an object {id, title, body, url?}");
  const r = item as Record<string, unknown>;
  const id = typeof r.id === "number" && Number.isInteger(r.id) ? String(r.id) : r.id;
  if (typeof id !== "string" || id.trim() === "") return fail("id must be a non-empty string");
  if (id !== id.trim()) return fail("id must not start or end with white space", id);
  if (typeof r.title !== "string" || r.title.trim() === "") return fail("title must be a non-empty string", id);
  if (typeof r.body !== "string") return fail("body must be a string", id);
  if (r.url !== undefined && r.url !== null && typeof r.url !== "string") return fail("url, when given, must be a string", id);
  const doc: Document = { id, title: r.title.trim(), body: r.body };
  if (typeof r.url === "string" && r.url !== "") doc.url = r.url;
  return doc;
}

/** Reads every Markdown file under `folder` (sorted by path, so the order and the ids are stable across reloads). */
function loadMarkdownFolder(folder: string): Document[] {
  const problems: Problem[] = [];
  const records: unknown[] = [];
  const files = markdownFiles(folder);
  if (files.length === 0) {
    throw refusedFile("documents_invalid", folder, [{ file: folder, rule: "no Markdown files", message: "the folder holds no .md or .markdown files" }]);
  }
  files.forEach((file, index) => {
    const relativePath = relative(folder, file).split(sep).join("/");
    try {
      records.push(markdownRecord(readText(file), relativePath));
    } catch (error) {
      const message = error instanceof ToolsearchError ? error.message.replace(`${file}: `, "") : (error as Error).message;
      problems.push({ file: join(folder, relativePath), index, name: relativePath, rule: "readable Markdown", message });
      records.push(null);
    }
  });
  if (problems.length) throw refusedFile("documents_invalid", folder, problems);
  // Name each file in messages, rather than the folder and a position.
  const checked: Document[] = [];
  const seen = new Map<string, string>();
  records.forEach((record, index) => {
    const file = `${folder.replace(/\/+$/, "")}/${relative(folder, files[index]).split(sep).join("/")}`;
    const result = checkDocument(record, index, file);
    if ("problem" in result) {
      const untitled = result.problem.rule?.startsWith("title");
      const message = untitled ? "a title is required: front matter `title` or a first `# heading`" : result.problem.message;
      return problems.push({ ...result.problem, index: undefined, message });
    }
    const other = seen.get(result.id);
    if (other !== undefined) {
      const rule = "ids must be unique";
      return problems.push({ file, name: result.id, rule, message: `${rule}: same id as ${other}` });
    }
    seen.set(result.id, file);
    checked.push(result);
  });
  if (problems.length) throw refusedFile("documents_invalid", folder, problems);
  return checked;
}

function markdownFiles(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (MARKDOWN_EXTENSIONS.has(extname(entry.name).toLowerCase())) out.push(full);
    }
  };
  walk(folder);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const HEADING = /^[ \t]{0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/m;

/**
 * One Markdown file as a document record: front matter `id`, `title` (and `url`) when present; otherwise the id is
 * the path without its extension and the title the first heading. The body is the text after the front matter.
 */
export function markdownRecord(text: string, relativePath: string): Record<string, unknown> {
  let meta: Record<string, unknown> = {};
  let body = text.replace(/^\uFEFF/, "");
  const match = FRONT_MATTER.exec(body);
  if (match) {
    let parsed: unknown;
    try {
      parsed = parseYaml(match[1]);
    } catch (error) {
      throw new Error(`front matter is not valid YAML (${(error as Error).message.split("\n")[0]})`);
    }
    if (parsed !== null && parsed !== undefined && (typeof parsed !== "object" || Array.isArray(parsed))) {
      throw new Error("front matter must be a YAML mapping (id: …, title: …)");
    }
    meta = (parsed ?? {}) as Record<string, unknown>;
    body = body.slice(match[0].length);
  }
  const heading = HEADING.exec(body)?.[1]?.trim();
  return {
    ...meta,
    id: meta.id ?? relativePath.replace(/\.[^./]+$/, ""),
    title: meta.title ?? heading ?? "",
    body,
  };
}
