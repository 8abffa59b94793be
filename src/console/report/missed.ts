/**
 * The table of missed queries: filtered (by engine, by text) and paginated, so that 20,000 queries never become
 * 20,000 rows of DOM. Each query has an anchor (`#q-<id>`), and each engine that missed it a link to its explanation
 * (`#why-<id>-<engine>`); following either opens the right page with the details shown.
 */
import type { MissedQuery, ReportData } from "../../eval/report-data.js";
import { fill, h } from "../dom.js";
import { renderExplanation } from "./explanation.js";

const PAGE_SIZE = 25;
const SHOWN_RESULTS = 5;

/** How the table links: by URL fragment (the standalone report), or by buttons only (inside the console's router). */
export interface MissedTableOptions {
  hashLinks?: boolean;
}

export function drawMissedTable(container: HTMLElement, data: ReportData, options: MissedTableOptions = {}): void {
  const hashLinks = options.hashLinks ?? true;
  const state = { engine: "", text: "", page: 0, open: new Set<string>() };
  const engineSelect = h("select", { id: "missed-engine", name: "missed-engine" },
    h("option", { value: "" }, "any engine"), data.engines.map((e) => h("option", { value: e }, e)));
  const textInput = h("input", { id: "missed-text", name: "missed-text", type: "search", placeholder: "query, id or expected name" });
  const summary = h("p", { class: "summary", "aria-live": "polite" });
  const body = h("tbody");
  const pager = h("nav", { class: "pager", "aria-label": "missed queries pages" });
  container.append(
    h("div", { class: "controls" },
      h("label", { for: "missed-engine" }, "Missed by "), engineSelect,
      h("label", { for: "missed-text" }, " Filter "), textInput),
    summary,
    h("table", { class: "missed" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "query"), h("th", { scope: "col" }, "expected"),
        data.engines.map((e) => h("th", { scope: "col", "data-engine": e }, `${e} returned`)))),
      body),
    pager,
  );
  if (data.unexplained > 0) container.append(h("p", { class: "muted" }, `${data.unexplained} missed (query, engine) pairs have no explanation (the report keeps at most a few thousand per engine).`));

  const name = (i: number) => data.names[i];
  const filtered = (): MissedQuery[] => {
    const text = state.text.toLowerCase();
    return data.missed.filter((m) => (!state.engine || m.missed.includes(state.engine))
      && (!text || m.query.toLowerCase().includes(text) || m.id.toLowerCase().includes(text) || m.relevant.some((r) => name(r).toLowerCase().includes(text))));
  };

  const render = () => {
    const rows = filtered();
    const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
    state.page = Math.min(state.page, pages - 1);
    const shown = rows.slice(state.page * PAGE_SIZE, (state.page + 1) * PAGE_SIZE);
    fill(summary, `${rows.length} of ${data.missed.length} missed queries (of ${data.queries} evaluated)`, state.engine ? `, missed by ${state.engine}` : "", ".");
    fill(body, shown.map((m) => queryRows(m)));
    fill(pager,
      h("button", { type: "button", disabled: state.page === 0, onclick: () => go(state.page - 1) }, "‹ previous"),
      ` page ${state.page + 1} of ${pages} `,
      h("button", { type: "button", disabled: state.page >= pages - 1, onclick: () => go(state.page + 1) }, "next ›"));
  };
  const go = (page: number) => {
    state.page = page;
    render();
  };

  const whyLink = (m: MissedQuery, engine: string): HTMLElement => {
    const key = `${m.id}-${engine}`;
    if (hashLinks) return h("a", { href: `#why-${key}`, class: "why" }, "why?");
    return h("button", { type: "button", class: "why", "aria-expanded": String(state.open.has(key)), onclick: () => {
      if (!state.open.delete(key)) state.open.add(key);
      render();
    } }, "why?");
  };

  const queryRows = (m: MissedQuery): HTMLElement[] => {
    const relevant = new Set(m.relevant);
    const row = h("tr", { id: `q-${m.id}`, "data-query": m.id },
      h("td", {}, h("div", { class: "query" }, m.query), h("div", { class: "muted" }, m.id)),
      h("td", {}, m.relevant.map((r) => h("div", {}, h("code", {}, name(r))))),
      data.engines.map((e) => {
        const missedHere = m.missed.includes(e);
        const results = m.results[e].slice(0, SHOWN_RESULTS);
        return h("td", { "data-engine": e, class: missedHere ? "miss" : "hit" },
          missedHere ? null : h("div", { class: "ok" }, "✓ all expected in top 10"),
          results.length ? h("ol", {}, results.map((r) => h("li", { class: relevant.has(r) ? "relevant" : "" }, h("code", {}, name(r))))) : h("div", { class: "muted" }, "nothing returned"),
          missedHere && m.explanations?.[e] ? whyLink(m, e) : null);
      }));
    const out = [row];
    for (const e of m.missed) {
      const key = `${m.id}-${e}`;
      if (!state.open.has(key) || !m.explanations?.[e]) continue;
      out.push(h("tr", { id: `why-${key}`, class: "details" },
        h("td", { colspan: 2 + data.engines.length },
          h("p", {}, h("strong", {}, `Why ${e} missed it`), " ", hashLinks ? h("a", { href: `#q-${m.id}` }, "(back)") : null),
          m.explanations[e].map((why) => renderExplanation(why, why.query ?? m.query)))));
    }
    return out;
  };

  engineSelect.addEventListener("change", () => {
    state.engine = engineSelect.value;
    go(0);
  });
  let timer: number | undefined;
  textInput.addEventListener("input", () => {
    clearTimeout(timer);
    timer = window.setTimeout(() => {
      state.text = textInput.value.trim();
      go(0);
    }, 150);
  });

  /** `#q-<id>` or `#why-<id>-<engine>`: show the page that holds the query, with its explanation open. */
  const follow = () => {
    const hash = decodeURIComponent(location.hash.slice(1));
    const why = data.engines.map((e) => [e, `-${e}`] as const).find(([, suffix]) => hash.startsWith("why-") && hash.endsWith(suffix));
    const id = why ? hash.slice(4, -why[1].length) : hash.startsWith("q-") ? hash.slice(2) : undefined;
    if (id === undefined) return;
    const rows = filtered();
    let at = rows.findIndex((m) => m.id === id);
    if (at < 0) {
      state.engine = "";
      state.text = "";
      engineSelect.value = "";
      textInput.value = "";
      at = filtered().findIndex((m) => m.id === id);
    }
    if (at < 0) return;
    if (why) state.open.add(`${id}-${why[0]}`);
    state.page = Math.floor(at / PAGE_SIZE);
    render();
    document.getElementById(hash)?.scrollIntoView({ block: "start" });
  };
  render();
  if (hashLinks) {
    window.addEventListener("hashchange", follow);
    follow();
  }
}
