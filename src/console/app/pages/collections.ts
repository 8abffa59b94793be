/** The collections page: every collection with its kind, size, engines, last change and whether this replica holds it in memory. */
import { h } from "../../dom.js";
import { type CollectionSummary, enginesOf, when } from "../api.js";
import type { PageContext } from "../ui.js";

export function collectionsPage({ main }: PageContext, collections: CollectionSummary[]): undefined {
  const link = (c: CollectionSummary, page: string, label: string) => h("a", { href: `#/c/${encodeURIComponent(c.name)}/${page}` }, label);
  main.replaceChildren(
    h("h1", {}, "Collections"),
    collections.length === 0
      ? h("p", {}, "No collections yet. Add one with ", h("code", {}, "toolsearch serve --catalog FILE"), " or ", h("code", {}, "PUT /v1/collections/{name}"), ".")
      : h("table", { class: "collections" },
        h("thead", {}, h("tr", {}, ["name", "kind", "size", "engines", "last change", "memory", ""].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, collections.map((c) => h("tr", { "data-collection": c.name },
          h("th", { scope: "row" }, link(c, "search", c.name)),
          h("td", {}, c.kind),
          h("td", { class: "num" }, c.size.toLocaleString()),
          h("td", {}, enginesOf(c.kind).join(", ")),
          h("td", {}, h("time", { datetime: c.updated_at }, when(c.updated_at))),
          h("td", { class: c.loaded === false ? "muted" : "", title: c.loaded === false ? "loads on its next search" : "index held in memory" }, c.loaded === false ? "idle" : "loaded"),
          h("td", {}, link(c, "search", "search"), " · ", c.kind !== "docs" ? [link(c, "lint", "lint"), " · "] : null, link(c, "eval", "eval")))))),
  );
  return undefined;
}
