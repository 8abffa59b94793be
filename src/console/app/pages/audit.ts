/**
 * The audit log page (SPEC §16): tool calls, collection writes and review decisions, newest first, from
 * `GET /v1/audit`, filtered by collection, caller and time, and paged with the service's `before` cursor. The log is
 * for admin keys; any other key gets the service's 403, shown here as a plain sentence rather than an error code.
 */
import { fill, h } from "../../dom.js";
import type { AuditRecord } from "../../../store/types.js";
import { api, ApiError, type CollectionSummary } from "../api.js";
import { errorBox, type PageContext } from "../ui.js";

interface AuditAnswer {
  entries: AuditRecord[];
  next?: number;
}

/** Entries per page. */
const PAGE = 50;
const FILTERS = ["collection", "who", "since"] as const;

export function auditPage({ main, params, setParams }: PageContext, collections: CollectionSummary[]): () => void {
  const inputs = Object.fromEntries(FILTERS.map((name) => [name, h("input", { id: `audit-${name}`, name, type: "search", value: params.get(name) ?? "", size: name === "collection" ? 18 : 28 })])) as Record<typeof FILTERS[number], HTMLInputElement>;
  inputs.collection.setAttribute("list", "audit-collections");
  inputs.since.placeholder = "30m, 12h, 7d or an ISO time";
  const form = h("form", { class: "controls", role: "search" },
    h("label", { for: "audit-collection" }, "Collection"), inputs.collection,
    h("datalist", { id: "audit-collections" }, collections.map((c) => h("option", { value: c.name }))),
    h("label", { for: "audit-who" }, "Who"), inputs.who,
    h("label", { for: "audit-since" }, "Since"), inputs.since,
    h("button", { type: "submit" }, "Filter"));
  const body = h("div", {});
  main.replaceChildren(h("h1", {}, "Audit log"),
    h("p", { class: "muted" }, "Tool calls, collection writes and review decisions, newest first. Arguments are kept only when the service runs with --audit-arguments."),
    form, body);

  // Cursors of the pages before this one, so "Newer" can go back without the service keeping state.
  const cursors: (number | undefined)[] = [];
  let controller: AbortController | undefined;
  const load = (before: number | undefined) => {
    controller?.abort();
    controller = new AbortController();
    const query = new URLSearchParams({ limit: String(PAGE) });
    for (const name of FILTERS) if (params.get(name)) query.set(name, params.get(name)!);
    if (before !== undefined) query.set("before", String(before));
    fill(body, h("p", { class: "muted" }, "Loading…"));
    api<AuditAnswer>("GET", `/v1/audit?${query}`, undefined, controller.signal).then(
      (answer) => fill(body, auditTable(answer.entries), pager(answer, before)),
      (e) => {
        if ((e as Error).name !== "AbortError") fill(body, notAllowed(e) ?? errorBox(e));
      });
  };
  const pager = (answer: AuditAnswer, before: number | undefined) => h("div", { class: "pager" },
    h("button", { type: "button", disabled: cursors.length === 0, onclick: () => load(cursors.pop()) }, "‹ Newer"),
    h("span", { class: "muted" }, `${answer.entries.length} entr${answer.entries.length === 1 ? "y" : "ies"}${cursors.length ? ` on page ${cursors.length + 1}` : ""}`),
    h("button", { type: "button", disabled: answer.next === undefined, onclick: () => { cursors.push(before); load(answer.next); } }, "Older ›"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next: Record<string, string> = {};
    for (const name of FILTERS) if (inputs[name].value.trim()) next[name] = inputs[name].value.trim();
    setParams(next);
    params = new URLSearchParams(next);
    cursors.length = 0;
    load(undefined);
  });
  load(undefined);
  return () => controller?.abort();
}

/** A 403 means the key is not an admin key: say so, with how to get one. */
function notAllowed(error: unknown): HTMLElement | undefined {
  if (!(error instanceof ApiError) || error.status !== 403) return undefined;
  return h("div", { class: "error-box", role: "alert" },
    h("strong", {}, "Only admin keys can read the audit log."), " This key's scope does not include it; use a key made with ",
    h("code", {}, "toolsearch keys create --scope admin"), ".");
}

function auditTable(entries: AuditRecord[]): HTMLElement {
  if (entries.length === 0) return h("p", {}, "No entries match.");
  const columns = ["when", "who", "action", "collection", "tool or item", "outcome", "duration", "argument size"];
  return h("table", { class: "audit" },
    h("thead", {}, h("tr", {}, columns.map((c, i) => h("th", { scope: "col", class: i >= 6 ? "num" : undefined }, c)))),
    h("tbody", {}, entries.map((e) => h("tr", { "data-id": String(e.id), "data-outcome": e.outcome },
      h("td", {}, h("time", { datetime: e.at, title: e.at }, stamp(e.at))),
      h("td", {}, h("code", {}, e.who)),
      h("td", {}, e.action),
      h("td", {}, e.collection),
      h("td", {}, e.target === undefined ? h("span", { class: "muted" }, "—") : h("code", {}, e.target)),
      h("td", {}, h("span", { class: `outcome ${e.outcome === "ok" ? "ok" : "bad"}` }, e.outcome)),
      h("td", { class: "num" }, `${e.durationMs.toFixed(1)} ms`),
      h("td", { class: "num" }, e.argumentBytes === undefined ? "—" : `${e.argumentBytes} B`)))));
}

/** A time to the second in the reader's zone: calls in one minute are told apart by their order. */
function stamp(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}
