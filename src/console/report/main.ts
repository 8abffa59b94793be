/** The self-contained HTML report: reads the data inlined in the page and draws the charts and the missed table. */
import type { ReportData } from "../../eval/report-data.js";
import { h } from "../dom.js";
import { drawCharts } from "./charts.js";
import { drawMissedTable } from "./missed.js";
import { metricsTable } from "./metrics-table.js";

const data = JSON.parse(document.getElementById("report-data")!.textContent!) as ReportData;
const root = document.getElementById("report")!;

root.append(
  h("header", {},
    h("h1", {}, data.title),
    h("p", { class: "muted" }, `${data.queries} queries · engines ${data.engines.join(", ")} · `,
      Object.entries(data.source).map(([k, v]) => `${k} ${v} · `), `made ${data.created.replace("T", " ").slice(0, 19)} UTC`)),
  h("section", { "aria-labelledby": "metrics-h" }, h("h2", { id: "metrics-h" }, "Metrics"), metricsTable(data)),
);
const charts = h("section", { class: "charts", "aria-labelledby": "charts-h" }, h("h2", { id: "charts-h" }, "Charts"));
root.append(charts);
drawCharts(charts, data);
const missed = h("section", { "aria-labelledby": "missed-h" }, h("h2", { id: "missed-h" }, "Missed queries"),
  h("p", { class: "muted" }, "A query is missed by an engine when an expected item is not in its top 10. Expected items it did return are marked."));
root.append(missed);
drawMissedTable(missed, data);
