/**
 * Search with every engine side by side, as you type (debounced; a new keystroke cancels the requests in flight).
 * Each hit expands, in place, to its definition and its explanation for that engine.
 */
import type { Explanation } from "../../../indexes/explain.js";
import { fill, fixed, h } from "../../dom.js";
import { renderExplanation } from "../../report/explanation.js";
import { api, type CollectionSummary, enginesOf, type Hit, itemPath } from "../api.js";
import { debounce, errorBox, jsonBlock, type PageContext } from "../ui.js";

const TYPING_PAUSE_MS = 200;
const LIMIT = 10;

export function searchPage({ main, collection, params, setParams }: PageContext): () => void {
  const c = collection!;
  const engines = enginesOf(c.kind);
  const input = h("input", { id: "q", name: "q", type: "search", autocomplete: "off", autofocus: true, placeholder: c.kind === "docs" ? "e.g. how do I get a refund" : "e.g. weather in Paris", value: params.get("q") ?? "" });
  const status = h("p", { class: "muted", "aria-live": "polite" });
  const columns = new Map(engines.map((e) => [e, h("ol", { class: "hits" })]));
  const notes = new Map(engines.map((e) => [e, h("p", { class: "muted small" })]));
  main.replaceChildren(
    h("h1", {}, `Search ${c.name}`),
    h("p", { class: "muted" }, `${c.kind}, ${c.size.toLocaleString()} items. Every engine answers as you type; open a hit to see its definition and why it ranks there.`),
    h("div", { class: "searchbox" }, h("label", { for: "q" }, "Query"), input),
    status,
    h("div", { class: "results", style: `--columns: ${engines.length}` }, engines.map((e) =>
      h("section", { "data-engine": e, "aria-label": `${e} results` }, h("h2", {}, e), notes.get(e)!, columns.get(e)!))),
  );
  input.focus();

  let controller: AbortController | undefined;
  const run = async () => {
    const query = input.value.trim();
    setParams(query ? { q: query } : {});
    controller?.abort();
    if (!query) {
      for (const e of engines) fill(columns.get(e)!), fill(notes.get(e)!);
      fill(status);
      return;
    }
    controller = new AbortController();
    const signal = controller.signal;
    fill(status, `Searching for ${JSON.stringify(query)}…`);
    const started = performance.now();
    await Promise.all(engines.map(async (engine) => {
      const list = columns.get(engine)!;
      list.setAttribute("aria-busy", "true");
      const began = performance.now();
      try {
        const answer = await api<{ results: Hit[] }>("POST", `/v1/collections/${encodeURIComponent(c.name)}/search`, { query, engine, limit: LIMIT }, signal);
        if (signal.aborted) return;
        fill(notes.get(engine)!, `${answer.results.length} hit${answer.results.length === 1 ? "" : "s"} · ${Math.round(performance.now() - began)} ms`);
        fill(list, answer.results.length ? answer.results.map((hit, i) => hitItem(c, engine, query, hit, i)) : h("li", { class: "none" }, "no match"));
      } catch (error) {
        if (signal.aborted) return;
        fill(notes.get(engine)!);
        fill(list, h("li", { class: "none" }, errorBox(error)));
      } finally {
        list.removeAttribute("aria-busy");
      }
    }));
    if (!signal.aborted) fill(status, `Results for ${JSON.stringify(query)} (${Math.round(performance.now() - started)} ms).`);
  };
  const typed = debounce(() => void run(), TYPING_PAUSE_MS);
  input.addEventListener("input", typed);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      typed.cancel();
      void run();
    }
  });
  if (input.value) void run();
  return () => {
    typed.cancel();
    controller?.abort();
  };
}

/** One hit: a button that expands to the definition and the explanation (loaded on first open). */
function hitItem(c: CollectionSummary, engine: string, query: string, hit: Hit, i: number): HTMLElement {
  const id = (hit.name ?? hit.id)!;
  const detailsId = `hit-${engine}-${i}`;
  const details = h("div", { id: detailsId, class: "hit-details", hidden: true });
  const toggle = h("button", { type: "button", class: "hit", "aria-expanded": "false", "aria-controls": detailsId },
    h("span", { class: "rank" }, `${i + 1}.`), " ", h("code", { class: "name" }, hit.title ? `${hit.title}` : id),
    h("span", { class: "score" }, fixed(hit.score)),
    h("span", { class: "desc" }, hit.description ?? hit.snippet ?? ""));
  let loaded = false;
  toggle.addEventListener("click", () => {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    details.hidden = !open;
    if (open && !loaded) {
      loaded = true;
      void loadDetails(c, engine, query, id, details);
    }
  });
  return h("li", { "data-name": id }, toggle, details);
}

async function loadDetails(c: CollectionSummary, engine: string, query: string, id: string, into: HTMLElement): Promise<void> {
  fill(into, h("p", { class: "muted" }, "Loading…"));
  const [definition, why] = await Promise.allSettled([
    api<unknown>("GET", itemPath(c, id)),
    api<Explanation>("POST", `/v1/collections/${encodeURIComponent(c.name)}/explain`, { query, name: id, engine }),
  ]);
  fill(into,
    h("div", { class: "why" }, why.status === "fulfilled" ? renderExplanation(why.value) : errorBox(why.reason)),
    h("details", {}, h("summary", {}, c.kind === "docs" ? "Document" : "Definition"),
      definition.status === "fulfilled" ? jsonBlock(definition.value) : errorBox(definition.reason)),
    h("p", {}, h("a", { href: `#/c/${encodeURIComponent(c.name)}/item/${encodeURIComponent(id)}?${new URLSearchParams({ q: query, engine })}` }, c.kind === "docs" ? "Open the document page" : "Open the tool page (definition and lint findings)")));
}
