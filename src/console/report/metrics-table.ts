/** The metrics of an eval, engines as rows. */
import type { ReportData } from "../../eval/report-data.js";
import { fixed, h, pct } from "../dom.js";

export function metricsTable(d: ReportData): HTMLElement {
  const cols = ["recall@1", "recall@5", "recall@10", "ndcg@10", "mrr@10"] as const;
  return h("table", { class: "metrics" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "engine"), cols.map((c) => h("th", { scope: "col" }, c)), h("th", { scope: "col" }, "p50 ms"), h("th", { scope: "col" }, "p99 ms"))),
    h("tbody", {}, d.engines.map((e) => h("tr", { "data-engine": e }, h("th", { scope: "row" }, e),
      cols.map((c) => h("td", { class: "num" }, pct(d.metrics[e][c]))),
      h("td", { class: "num" }, fixed(d.metrics[e].p50_ms, 2)), h("td", { class: "num" }, fixed(d.metrics[e].p99_ms, 2))))));
}
