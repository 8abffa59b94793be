/** Word-level helpers shared by the rules: splitting names, spotting verbs, matching parameters to prose. */

/** Separator between an MCP server prefix and the tool's own name (`github__create_issue`). */
const NAMESPACE_SEPARATOR = "__";

/** Splits a name into its namespace (server prefix before the last `__`) and its own part. */
export function splitNamespace(name: string): { namespace: string; localName: string } {
  const at = name.lastIndexOf(NAMESPACE_SEPARATOR);
  if (at <= 0 || at + NAMESPACE_SEPARATOR.length >= name.length) return { namespace: "", localName: name };
  return { namespace: name.slice(0, at), localName: name.slice(at + NAMESPACE_SEPARATOR.length) };
}

/** The words of an identifier, lower case: `getUserByID` → get, user, by, id; `search-web_v2` → search, web, v2. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/**
 * Verbs that open a tool name. Broad on purpose: a name that starts with any of these names an action. Words ending in
 * -ize/-ise/-ify/-ate are accepted as verbs too (`summarize`, `classify`, `translate`).
 */
const VERBS = new Set(`
  get list search find fetch read query lookup look retrieve browse scan show view describe explain inspect count
  create add insert new post put make build generate compose draft write append upload import register open start
  launch init initialize setup install deploy publish schedule book reserve order buy purchase pay subscribe join invite
  update edit patch modify set change rename move copy clone merge split replace reset restore rotate resize crop tag
  label assign unassign mark flag pin unpin star unstar like follow unfollow enable disable toggle lock unlock
  delete remove destroy drop clear purge cancel close stop end kill terminate archive unarchive revoke ban block unblock
  send notify email message reply forward share post tweet comment reply publish broadcast push pull sync fetch
  run execute call invoke trigger process handle perform apply submit approve reject accept decline confirm verify
  check validate test ping monitor watch track trace log record save store cache download export print render
  convert parse format transform translate encode decode encrypt decrypt hash sign compress extract scrape crawl
  calculate compute estimate predict forecast analyze analyse compare match rank score sort filter group aggregate
  summarize summarise classify detect recognize identify resolve geocode transcribe speak say ask answer chat
  play pause resume skip seek stream record capture take click type scroll navigate go visit press hover select fill
  wait sleep login logout authenticate authorize connect disconnect attach detach mount unmount load unload use
  fix debug lint review refactor commit checkout branch fork plan solve evaluate optimize recommend suggest
  shorten expand reverse roll flip pick choose draw plot chart map visualize manage ingest configure config enrich
  echo complete transfer backup batch upsert sample void refund`.split(/\s+/).filter(Boolean));

/** Whether a lower-case word reads as a verb. */
export function isVerb(word: string): boolean {
  return VERBS.has(word) || /^[a-z]{3,}(ize|ise|ify)$/.test(word);
}

/** A crude English singular (`users` → user, `entries` → entry, `status` stays). Enough to group CRUD names. */
export function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Whether every word of a parameter name (ignoring one-letter parts) is among the analyzed `terms`. */
export function isMentioned(paramName: string, terms: Set<string>, analyze: (text: string) => string[]): boolean {
  const words = analyze(nameWords(paramName).join(" "));
  if (words.length === 0) return false;
  return words.every((w) => terms.has(w)) || terms.has(analyze(paramName).at(-1) ?? "");
}

/** Scripts written without spaces between words; about two characters make a word there. */
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/gu;

/** The number of words in a text (Chinese, Japanese, Korean and Thai counted at two characters a word). */
export function wordCount(text: string): number {
  const unspaced = text.match(UNSPACED_SCRIPT)?.length ?? 0;
  const spaced = text.replace(UNSPACED_SCRIPT, " ").split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  return spaced + Math.ceil(unspaced / 2);
}

/** The first verb among a name's words (`edubase_get_class_tags` → get), or "". */
export function actionOf(words: string[]): string {
  return words.find((w) => isVerb(w)) ?? "";
}

/** Whether two names act differently (get_x vs enable_x): the action alone tells them apart. */
export function differentActions(a: { words: string[] }, b: { words: string[] }): boolean {
  const verbA = actionOf(a.words);
  const verbB = actionOf(b.words);
  return verbA !== "" && verbB !== "" && verbA !== verbB;
}

/** Whether a text names a tool (case-insensitive; names of one or two letters never count). */
export function mentionsName(text: string, name: string): boolean {
  return name.length > 2 && text.toLowerCase().includes(name.toLowerCase());
}
