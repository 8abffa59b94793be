/**
 * A readable diff of a held tool definition against the pinned one: the description word by word, the input schema
 * line by line (pretty-printed JSON with sorted keys), for `toolsearch mcp review`, the review route and the console.
 *
 * @example
 * ```ts
 * definitionDiff(pinned, held).description; // [{op:"same",text:"Adds two numbers."},{op:"added",text:" <IMPORTANT>…"}]
 * ```
 */
import type { HeldTool } from "./pin-book.js";

/** One run of a diff: text both versions share, or text only the held (`added`) or only the pinned (`removed`) has. */
export interface DiffPart {
  op: "same" | "added" | "removed";
  text: string;
}

/** The diff of a held definition against the pinned one (everything `added` for a tool never approved). */
export interface DefinitionDiff {
  description: DiffPart[];
  schema: DiffPart[];
}

/** Past this many token pairs the diff gives up on alignment and shows old and new whole (bounded work). */
const MAX_DIFF_CELLS = 4_000_000;

/** Longest-common-subsequence diff of two token lists, merged into runs. */
export function diffTokens(before: string[], after: string[]): DiffPart[] {
  if (before.length * after.length > MAX_DIFF_CELLS) return merge([...before.map((text) => ({ op: "removed" as const, text })), ...after.map((text) => ({ op: "added" as const, text }))]);
  const n = before.length;
  const m = after.length;
  // lcs[i][j]: length of the longest common subsequence of before[i..] and after[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i][j] = before[i] === after[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const parts: DiffPart[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) {
      parts.push({ op: "same", text: before[i++] });
      j++;
    } else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) parts.push({ op: "removed", text: before[i++] });
    else parts.push({ op: "added", text: after[j++] });
  }
  return merge(parts);
}

function merge(parts: DiffPart[]): DiffPart[] {
  const out: DiffPart[] = [];
  for (const part of parts) {
    const last = out[out.length - 1];
    if (last && last.op === part.op) last.text += part.text;
    else out.push({ ...part });
  }
  return out;
}

/** Words with the whitespace after them, so that joining the parts gives the text back. */
function words(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Pretty JSON with sorted keys, one token per line (newline kept). */
function schemaLines(schema: unknown): string[] {
  if (schema === undefined) return [];
  return `${JSON.stringify(sortKeys(schema), null, 2)}\n`.match(/[^\n]*\n/g) ?? [];
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]));
}

/** Diffs the description and the input schema of two MCP tool definitions (`pinned` absent: all is new). */
export function definitionDiff(pinned: { description?: string; inputSchema?: unknown } | undefined, held: { description?: string; inputSchema?: unknown }): DefinitionDiff {
  return {
    description: diffTokens(words(pinned?.description ?? ""), words(held.description ?? "")),
    schema: diffTokens(schemaLines(pinned?.inputSchema), schemaLines(held.inputSchema)),
  };
}

/** Control, invisible and bidirectional characters, which must not act on a reviewer's terminal or page. */
const HIDDEN_CHARS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF\u{E0000}-\u{E007F}]/gu;

/** Shows hidden characters as `<U+200B>`, so a reviewer sees what the model would read. */
export function visible(text: string): string {
  return text.replace(HIDDEN_CHARS, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}>`);
}

/** Plain-text rendering for a terminal: `[-removed-]{+added+}` in the description, `-`/`+` lines in the schema. */
export function renderDiffText(diff: DefinitionDiff): string[] {
  const description = visible(diff.description.map((p) => (p.op === "same" ? p.text : p.op === "added" ? `{+${p.text}+}` : `[-${p.text}-]`)).join(""));
  const schema = diff.schema.flatMap((p) => {
    if (p.op === "same") return [];
    const mark = p.op === "added" ? "+ " : "- ";
    return visible(p.text.replace(/\n$/, "")).split("\n").map((line) => `    ${mark}${line}`);
  });
  return [`  description: ${description}`, ...(schema.length ? ["  input schema:", ...schema] : ["  input schema: unchanged"])];
}

/** A held tool with its diff, as the JSON outputs (CLI and service) give it. */
export function reviewEntry(tool: HeldTool): HeldTool & { diff: DefinitionDiff } {
  return { ...tool, diff: definitionDiff(tool.pinned, tool.held) };
}
