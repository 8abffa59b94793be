/**
 * Result screening (SPEC §16): the gateway sees every upstream tool result before the model does, so it is the one
 * place that can notice indirect prompt injection: a fetched page that says "AI assistant: ignore your previous
 * instructions", a fake error that orders a destructive call, a fake `[system]` or `USER:` turn, orders in an HTML
 * comment or in Unicode tag characters. The detectors are the poisoning rules' own (injection.ts); this module runs
 * them on a result's text blocks, the text of embedded resources and the string values of its structured content,
 * and applies the mode:
 *
 * - `off`: the result passes as it is, unscreened;
 * - `warn` (default): the result passes unchanged, with `_meta["toolsearch/screen"] = { flags: [{ rule, excerpt }] }`;
 * - `block`: the result is replaced by an error result starting `result_blocked` that names the rules and never
 *   repeats the payload.
 *
 * @example
 * ```ts
 * const flags = screenResult(result);
 * const shown = applyScreen(result, flags, "block", "web__fetch");
 * ```
 */
import type { CallToolResult, GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { addressedToModel, type Detection, hiddenBlock, hiddenCarrier, modelDirective, roleMarker } from "./injection.js";

/** What the gateway does with an upstream result that holds text aimed at the model. */
export type ScreenMode = "off" | "warn" | "block";

export const SCREEN_MODES: readonly ScreenMode[] = ["off", "warn", "block"];

/** The `_meta` key of the flags on a result. */
export const SCREEN_META_KEY = "toolsearch/screen";

/** One finding on a result: the detector, and a short, escaped quote of what it matched. */
export interface ScreenFlag {
  rule: string;
  excerpt: string;
}

/** What screening did with one call's result (for the audit entry and the metric). */
export interface ScreenOutcome {
  action: "flagged" | "blocked";
  flags: ScreenFlag[];
}

/**
 * The detectors run on results. Results are data written for people (pages, help articles, logs), so only the
 * detectors whose two signals never meet in honest text run here: a turn marker opening orders, text addressed to
 * the model with an order, orders to override instructions or deceive the user, hidden-instruction tags, and
 * comments, tag characters or base64 carrying orders. Secret *mentions* ("set OPENAI_API_KEY", "copy .env.example
 * to .env") are everyday build instructions in a result, so the lint's secret-request rule does not run here.
 */
type Detectors = { rule: string; detect: (text: string) => Detection | undefined }[];

const DETECTORS: Detectors = [
  { rule: "role-marker", detect: roleMarker },
  { rule: "addressed-to-model", detect: (text) => addressedToModel(text, { thirdPerson: "any" }) },
  { rule: "model-directive", detect: modelDirective },
  { rule: "hidden-block", detect: hiddenBlock },
  { rule: "hidden-carrier", detect: hiddenCarrier },
];

/**
 * The detectors run on a prompt's messages. A prompt is written to instruct the model, so speaking to it ("As an AI
 * assistant, you should …"), turn markers (`SYSTEM:`, `USER:`) and `<instructions>` tags are its honest form; only what
 * no honest prompt does is flagged: orders to override the client's instructions, to keep things from the user or to
 * skip their confirmation, and orders hidden where the user reading the prompt does not see them.
 */
const PROMPT_DETECTORS: Detectors = DETECTORS.filter((d) => d.rule === "model-directive" || d.rule === "hidden-carrier");

/** Longest excerpt kept of a match, in characters before escaping. */
const EXCERPT_CHARS = 60;
/** Most text screened per block: an attack that needs more than this to hide is still read from its start. */
const MAX_SCREENED_CHARS = 200_000;

/**
 * A short quote that is safe to show and log: whitespace folded, control, invisible, bidirectional and tag
 * characters written as `\u{…}` escapes so that a reader sees them, cut to `EXCERPT_CHARS`.
 */
export function excerptOf(text: string): string {
  const flat = text.replace(/[ \t\r\n]+/g, " ").trim();
  const cut = [...flat].slice(0, EXCERPT_CHARS).join("");
  const escaped = cut.replace(/[\p{Cc}\p{Cf}\u{E0000}-\u{E007F}\u2028\u2029\u115F\u1160\u3164\uFFA0]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
  return [...flat].length > EXCERPT_CHARS ? `${escaped}…` : escaped;
}

/** Flags of one piece of text, one per detector that fires (by default the detectors of tool results). */
export function screenText(text: string, detectors: Detectors = DETECTORS): ScreenFlag[] {
  const screened = text.length > MAX_SCREENED_CHARS ? text.slice(0, MAX_SCREENED_CHARS) : text;
  const flags: ScreenFlag[] = [];
  for (const { rule, detect } of detectors) {
    const hit = detect(screened);
    if (hit) flags.push({ rule, excerpt: excerptOf(hit.match) });
  }
  return flags;
}

/** Most values visited in a result's structured content, and how deep: a bound on the walk, whatever the upstream sends. */
const MAX_STRUCTURED_NODES = 10_000;
const MAX_STRUCTURED_DEPTH = 32;

/**
 * The string values inside structured content, joined by blank lines (so that one value's turn marker never opens a
 * turn in the next), walked breadth-first within `MAX_STRUCTURED_NODES`, `MAX_STRUCTURED_DEPTH` and
 * `MAX_SCREENED_CHARS`. Keys are left out: they are the schema's names, not text written for the model.
 */
export function structuredText(value: unknown): string {
  const parts: string[] = [];
  let chars = 0;
  const queue: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let i = 0; i < queue.length && chars < MAX_SCREENED_CHARS; i++) {
    const { value: node, depth } = queue[i];
    if (typeof node === "string") {
      parts.push(node);
      chars += node.length + 2;
    } else if (node !== null && typeof node === "object" && depth < MAX_STRUCTURED_DEPTH) {
      for (const child of Array.isArray(node) ? node : Object.values(node)) {
        if (queue.length >= MAX_STRUCTURED_NODES) break;
        queue.push({ value: child, depth: depth + 1 });
      }
    }
  }
  return parts.join("\n\n");
}

/** The texts of a result a model reads: text blocks, the text of embedded resources, and structured content's strings. */
function resultTexts(result: CallToolResult): string[] {
  const texts: string[] = [];
  for (const block of result.content ?? []) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "resource" && "text" in block.resource && typeof block.resource.text === "string") texts.push(block.resource.text);
  }
  if (result.structuredContent !== undefined) texts.push(structuredText(result.structuredContent));
  return texts;
}

/** Flags of several texts, each rule once with its first excerpt. */
function screenTexts(texts: { text: string; detectors: Detectors }[]): ScreenFlag[] {
  const byRule = new Map<string, ScreenFlag>();
  for (const { text, detectors } of texts) for (const flag of screenText(text, detectors)) if (!byRule.has(flag.rule)) byRule.set(flag.rule, flag);
  return [...byRule.values()];
}

/** Flags of a whole result (each rule once, with its first excerpt). */
export function screenResult(result: CallToolResult): ScreenFlag[] {
  return screenTexts(resultTexts(result).map((text) => ({ text, detectors: DETECTORS })));
}

/**
 * Flags of a prompt an upstream returned (`prompts/get`): its description and messages' text with the prompt
 * detectors, and the text of resources embedded in its messages (data, like a tool result) with the result detectors.
 */
export function screenPrompt(result: GetPromptResult): ScreenFlag[] {
  const texts: { text: string; detectors: Detectors }[] = result.description ? [{ text: result.description, detectors: PROMPT_DETECTORS }] : [];
  for (const { content } of result.messages) {
    if (content.type === "text") texts.push({ text: content.text, detectors: PROMPT_DETECTORS });
    else if (content.type === "resource" && "text" in content.resource && typeof content.resource.text === "string") texts.push({ text: content.resource.text, detectors: DETECTORS });
  }
  return screenTexts(texts);
}

/** Flags of a resource an upstream returned (`resources/read`): the text of its contents, read like a tool result. */
export function screenResourceContents(result: ReadResourceResult): ScreenFlag[] {
  return screenTexts(result.contents.flatMap((c) => ("text" in c && typeof c.text === "string" ? [{ text: c.text, detectors: DETECTORS }] : [])));
}

/** The rules that flagged something, each once (what a withheld answer names in place of the payload). */
export function flagRules(flags: ScreenFlag[]): string[] {
  return [...new Set(flags.map((f) => f.rule))];
}

/** What the model is told in place of a withheld result, prompt or resource: the rules, never the payload. */
export function blockedMessage(what: string, flags: ScreenFlag[]): string {
  const rules = flagRules(flags);
  return `result_blocked: ${what} was withheld because it holds text aimed at the model (${rules.join(", ")}). Treat the request as failed; the gateway's operator can read the flags in the audit log.`;
}

/** A relayed answer with the flags in its `_meta` (the `warn` mode). */
export function withFlags<T extends { _meta?: Record<string, unknown> }>(result: T, flags: ScreenFlag[]): T {
  return { ...result, _meta: { ...result._meta, [SCREEN_META_KEY]: { flags } } };
}

/**
 * Applies a mode to a result and its flags: unchanged when there are none or the mode is `off`; with the flags in
 * `_meta` under `warn`; replaced by a `result_blocked` error under `block` (its `_meta` names the rules only: the
 * excerpts quote the payload, which the model must not see; nor is the structured content passed on).
 */
export function applyScreen(result: CallToolResult, flags: ScreenFlag[], mode: ScreenMode, tool: string): CallToolResult {
  if (!flags.length || mode === "off") return result;
  if (mode === "warn") return withFlags(result, flags);
  return { content: [{ type: "text", text: blockedMessage(`the result of ${tool}`, flags) }], isError: true, _meta: { [SCREEN_META_KEY]: { blocked: true, rules: flagRules(flags) } } };
}

/** Screens a result under a mode: the result to return, and what screening did (undefined when nothing was flagged). */
export function screenCall(result: CallToolResult, mode: ScreenMode, tool: string): { result: CallToolResult; outcome?: ScreenOutcome } {
  if (mode === "off") return { result };
  const flags = screenResult(result);
  if (!flags.length) return { result };
  return { result: applyScreen(result, flags, mode, tool), outcome: { action: mode === "block" ? "blocked" : "flagged", flags } };
}
