/**
 * Eval from an uploaded labelled-queries file: the service runs it against the collection and answers with the
 * report's data, drawn here with the report's own charts and missed-queries table. Chart.js is loaded only now.
 */
import type { ReportData } from "../../../eval/report-data.js";
import { fill, h } from "../../dom.js";
import { metricsTable } from "../../report/metrics-table.js";
import { drawMissedTable } from "../../report/missed.js";
import { api, enginesOf } from "../api.js";
import { errorBox, type PageContext } from "../ui.js";

export function evalPage({ main, collection }: PageContext): undefined {
  const c = collection!;
  const file = h("input", { id: "queries-file", name: "queries", type: "file", accept: ".jsonl,.json,.yaml,.yml,.ndjson", required: true });
  const engines = enginesOf(c.kind).map((e) => h("input", { type: "checkbox", id: `engine-${e}`, name: "engines", value: e, checked: true }));
  const max = h("input", { id: "max-queries", name: "max_queries", type: "number", min: 1, max: 2000, placeholder: "all (≤ 2000)", style: "width: 10em" });
  const submit = h("button", { type: "submit" }, "Run eval");
  const out = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "eval-form" },
    h("p", {}, h("label", { for: "queries-file" }, "Labelled queries "), file,
      h("span", { class: "muted" }, " JSONL with ", h("code", {}, '{"id","query","relevant":[…]}'), " per line")),
    h("fieldset", {}, h("legend", {}, "Engines"), engines.map((box, i) => h("label", { for: box.id, class: "check" }, box, ` ${enginesOf(c.kind)[i]}`))),
    h("p", {}, h("label", { for: "max-queries" }, "At most "), max, " queries ", submit));
  main.replaceChildren(h("h1", {}, `Eval on ${c.name}`), form, out);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const upload = file.files?.[0];
    if (!upload) return;
    const chosen = engines.filter((b) => b.checked).map((b) => b.value);
    if (chosen.length === 0) return fill(out, errorBox(new Error("Pick at least one engine.")));
    submit.disabled = true;
    fill(out, h("p", { class: "muted" }, `Evaluating ${upload.name} with ${chosen.join(", ")}…`));
    try {
      const format = /\.ya?ml$/i.test(upload.name) ? "yaml" : /\.json$/i.test(upload.name) ? "json" : "jsonl";
      const body = { queries: await upload.text(), format, engines: chosen, file: upload.name, ...(max.value ? { max_queries: Number(max.value) } : {}) };
      const [data, charts] = await Promise.all([
        api<ReportData>("POST", `/v1/collections/${encodeURIComponent(c.name)}/eval`, body),
        import("../../report/charts.js"),
      ]);
      const chartArea = h("section", { class: "charts", "aria-labelledby": "charts-h" }, h("h2", { id: "charts-h" }, "Charts"));
      const missed = h("section", { "aria-labelledby": "missed-h" }, h("h2", { id: "missed-h" }, "Missed queries"));
      fill(out, h("h2", {}, `Metrics (${data.queries} queries)`), metricsTable(data), chartArea, missed);
      charts.drawCharts(chartArea, data);
      drawMissedTable(missed, data, { hashLinks: false });
    } catch (error) {
      fill(out, errorBox(error));
    } finally {
      submit.disabled = false;
    }
  });
  return undefined;
}
