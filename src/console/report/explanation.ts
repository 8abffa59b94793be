/** An explanation (`explain`) as HTML: the verdict, the parts of the score that add up to it, and what ranks above. */
import type { Explanation } from "../../indexes/explain.js";
import { fixed, h } from "../dom.js";

export function renderExplanation(why: Explanation, query?: string): HTMLElement {
  const q = query ?? why.query;
  const verdict = why.rank === null
    ? `${why.name} does not match with ${why.engine}; ${why.above} item(s) do.`
    : `${why.name} ranks #${why.rank} with ${why.engine} (score ${fixed(why.score)}).`;
  return h("div", { class: "explanation", "data-explains": why.name, "data-engine-explained": why.engine },
    h("p", { class: "verdict" }, verdict, q ? h("span", { class: "muted" }, ` ${why.engine === "regex" ? "Pattern" : "Query"}: ${JSON.stringify(q)}`) : null),
    why.note ? h("p", { class: "note" }, why.note) : null,
    why.ranker ? table(`Learned ranker (${why.ranker.model} model) score = the features' parts`, ["feature", "value", "weight", "part"],
      why.ranker.features.map((f) => [f.feature, fixed(f.value), fixed(f.weight ?? Number.NaN), fixed(f.contribution)]), fixed(why.ranker.score)) : null,
    // With the ranker the fusion is one of its features, so its parts add up to the fused score, not to `score`.
    why.parts ? table(why.ranker ? "Fused score before the ranker = the engines' parts" : "Fused score = the engines' parts", ["engine", "raw score", "part"],
      why.parts.map((p) => [p.engine, fixed(p.raw), fixed(p.contribution)]), why.ranker ? undefined : fixed(why.score)) : null,
    why.terms?.length ? table(
      why.engine === "hybrid" ? "BM25 score = sum of term contributions" : "Score = sum of term contributions",
      ["term", "field", "contribution"],
      why.terms.map((t) => [
        t.typo ? `${t.term} (typo: ${t.typo.query_term}, ${t.typo.distance} edit${t.typo.distance > 1 ? "s" : ""})` : t.term,
        t.passage === undefined ? t.field : `${t.field} (passage ${t.passage})`,
        fixed(t.contribution),
      ]),
      why.engine === "hybrid" ? undefined : fixed(why.terms.reduce((s, t) => s + t.contribution, 0)),
    ) : null,
    why.fields?.length ? h("div", {}, h("p", {}, "Matched fields (the first decides the score):"),
      h("ul", {}, why.fields.map((f) => h("li", {}, h("strong", {}, f.field), ": ", f.matches.map((m, i) => [i ? ", " : "", h("mark", {}, m.text), ` at ${m.start}`]))))) : null,
    why.semantic ? h("p", {}, `Similarity ${fixed(why.semantic.similarity)}, closest to the sentence `, h("q", {}, why.semantic.sentence), ".") : null,
    why.outranked_by.length ? h("div", {},
      h("p", {}, why.above > why.outranked_by.length ? `Ranked above it (best ${why.outranked_by.length} of ${why.above}):` : "Ranked above it:"),
      h("ol", { class: "outranked" }, why.outranked_by.map((o) => h("li", {}, h("code", {}, o.name), ` ${fixed(o.score)}`)))) : null,
  );
}

function table(caption: string, head: string[], rows: string[][], total?: string): HTMLElement {
  return h("table", { class: "parts" },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c, i) => h("td", { class: i === r.length - 1 ? "num" : "" }, c))))),
    total ? h("tfoot", {}, h("tr", {}, h("th", { scope: "row", colspan: head.length - 1 }, "total"), h("td", { class: "num" }, total))) : null,
  );
}
