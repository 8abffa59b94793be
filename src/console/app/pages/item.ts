/** A tool's (or document's) page: its definition, its lint findings, and why it ranks where it does for a query. */
import type { Explanation } from "../../../indexes/explain.js";
import { fill, h } from "../../dom.js";
import { renderExplanation } from "../../report/explanation.js";
import { api, enginesOf, itemPath } from "../api.js";
import { errorBox, jsonBlock, type PageContext } from "../ui.js";
import { findingsTable, type LintAnswer } from "./lint.js";

export function itemPage({ main, collection, params, rest, setParams }: PageContext): undefined {
  const c = collection!;
  const id = rest;
  const definition = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const findings = h("div", {});
  const explanation = h("div", { "aria-live": "polite" });
  const query = h("input", { id: "explain-q", name: "q", type: "search", value: params.get("q") ?? "", required: true });
  const engine = h("select", { id: "explain-engine", name: "engine" }, enginesOf(c.kind).map((e) => h("option", { value: e, selected: e === (params.get("engine") ?? "bm25") }, e)));
  const form = h("form", { class: "controls" },
    h("label", { for: "explain-q" }, "Query"), query,
    h("label", { for: "explain-engine" }, "Engine"), engine,
    h("button", { type: "submit" }, "Explain"));
  fill(main,
    h("h1", {}, h("code", {}, id)),
    h("p", {}, h("a", { href: `#/c/${encodeURIComponent(c.name)}/search${query.value ? `?q=${encodeURIComponent(query.value)}` : ""}` }, `‹ search ${c.name}`)),
    h("section", { "aria-labelledby": "why-h" }, h("h2", { id: "why-h" }, "Why it ranks where it does"), form, explanation),
    c.kind !== "docs" ? h("section", { "aria-labelledby": "lint-h" }, h("h2", { id: "lint-h" }, "Lint findings"), findings) : null,
    h("section", { "aria-labelledby": "def-h" }, h("h2", { id: "def-h" }, c.kind === "docs" ? "Document" : "Definition"), definition),
  );
  const explain = async () => {
    if (!query.value.trim()) return;
    setParams({ q: query.value.trim(), engine: engine.value });
    fill(explanation, h("p", { class: "muted" }, "Explaining…"));
    try {
      const why = await api<Explanation>("POST", `/v1/collections/${encodeURIComponent(c.name)}/explain`, { query: query.value.trim(), name: id, engine: engine.value });
      fill(explanation, renderExplanation(why));
    } catch (error) {
      fill(explanation, errorBox(error));
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void explain();
  });
  api<unknown>("GET", itemPath(c, id)).then((d) => fill(definition, jsonBlock(d)), (e) => fill(definition, errorBox(e)));
  if (c.kind !== "docs") {
    api<LintAnswer>("GET", `/v1/collections/${encodeURIComponent(c.name)}/lint`).then((report) => {
      const mine = report.findings.filter((f) => f.tool === id);
      fill(findings, mine.length ? findingsTable(c.name, mine, false) : h("p", { class: "ok" }, "No findings: this tool follows every lint rule."));
    }, (e) => fill(findings, errorBox(e)));
  }
  if (query.value) void explain();
  return undefined;
}
