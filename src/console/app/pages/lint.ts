/** A tool collection's lint report: score, counts per severity, and the findings, filterable by severity and text. */
import { fill, h } from "../../dom.js";
import { api } from "../api.js";
import { debounce, errorBox, type PageContext } from "../ui.js";

export interface LintAnswer {
  tools: number;
  score: number;
  summary: Record<string, number>;
  findings: { tool: string; rule: string; severity: string; message: string }[];
}

const SEVERITIES = ["error", "warning", "info"];
const SHOWN = 200;

export function lintPage({ main, collection }: PageContext): undefined {
  const c = collection!;
  const body = h("div", {}, h("p", { class: "muted" }, "Linting…"));
  main.replaceChildren(h("h1", {}, `Lint report of ${c.name}`), body);
  api<LintAnswer>("GET", `/v1/collections/${encodeURIComponent(c.name)}/lint`).then((report) => {
    const severity = h("select", { id: "lint-severity", name: "severity" }, h("option", { value: "" }, "all severities"), SEVERITIES.map((s) => h("option", { value: s }, s)));
    const text = h("input", { id: "lint-text", name: "lint-text", type: "search", placeholder: "tool, rule or words" });
    const list = h("div", {});
    const draw = () => {
      const t = text.value.trim().toLowerCase();
      const shown = report.findings.filter((f) => (!severity.value || f.severity === severity.value)
        && (!t || `${f.tool} ${f.rule} ${f.message}`.toLowerCase().includes(t)));
      fill(list, h("p", { class: "muted" }, `${shown.length} finding${shown.length === 1 ? "" : "s"}${shown.length > SHOWN ? `, the first ${SHOWN} shown` : ""}.`),
        findingsTable(c.name, shown.slice(0, SHOWN), true));
    };
    severity.addEventListener("change", draw);
    text.addEventListener("input", debounce(draw, 150));
    fill(body,
      h("p", { class: "lint-score" }, h("strong", {}, `Score ${report.score.toFixed(0)}/100`), ` over ${report.tools} tools: `,
        SEVERITIES.map((s, i) => [i ? ", " : "", h("span", { class: `sev ${s}` }, `${report.summary[s] ?? 0} ${s}`)])),
      h("div", { class: "controls" }, h("label", { for: "lint-severity" }, "Show"), severity, h("label", { for: "lint-text" }, "Filter"), text),
      list);
    draw();
  }, (e) => fill(body, errorBox(e)));
  return undefined;
}

/** Findings as a table; with `withTool`, a first column links each to its tool's page. */
export function findingsTable(collection: string, findings: LintAnswer["findings"], withTool: boolean): HTMLElement {
  return h("table", { class: "findings" },
    h("thead", {}, h("tr", {}, withTool ? h("th", { scope: "col" }, "tool") : null, ["severity", "rule", "message"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, findings.map((f) => h("tr", { "data-severity": f.severity },
      withTool ? h("td", {}, h("a", { href: `#/c/${encodeURIComponent(collection)}/item/${encodeURIComponent(f.tool)}` }, h("code", {}, f.tool))) : null,
      h("td", {}, h("span", { class: `sev ${f.severity}` }, f.severity)), h("td", {}, h("code", {}, f.rule)), h("td", {}, f.message)))));
}
