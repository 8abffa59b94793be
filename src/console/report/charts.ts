/**
 * The report's charts, drawn with Chart.js (tree-shaken to bar and line charts): metrics side by side, recall@k for
 * k = 1…10, and latency histograms. Used by the HTML report and the console's eval page alike.
 *
 * Why Chart.js: maintained, accessible defaults (legend toggles, tooltips, keyboard-free reading), canvas rendering
 * that stays fast with any number of queries (charts plot aggregates, never one mark per query), and tree-shaking
 * that keeps what we use near 60 KB gzipped. uPlot is smaller but has no grouped bars; ECharts is 5× larger.
 */
import {
  BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip,
} from "chart.js";
import type { ReportData } from "../../eval/report-data.js";
import { h } from "../dom.js";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Legend, Tooltip);

/** One colour per engine, in a fixed order, readable on white and for common colour-vision deficiencies. */
const PALETTE = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#999999"];
const colour = (i: number) => PALETTE[i % PALETTE.length];

const METRICS = ["recall@1", "recall@5", "recall@10", "ndcg@10", "mrr@10"] as const;

/** Each chart in a titled figure; `data-chart` names it for tests and links. */
function figure(name: string, title: string, caption: string): { el: HTMLElement; canvas: HTMLCanvasElement } {
  const canvas = h("canvas", { role: "img", "aria-label": title });
  const el = h("figure", { class: "chart", "data-chart": name }, h("figcaption", {}, h("strong", {}, title), " ", caption), h("div", { class: "canvas" }, canvas));
  return { el, canvas };
}

/** Draws every chart of the report into `container`; returns the charts (to destroy them before redrawing). */
export function drawCharts(container: HTMLElement, data: ReportData): Chart[] {
  const charts: Chart[] = [];
  const engines = data.engines;

  const metrics = figure("metrics", "Quality by engine", "(higher is better; % of the ideal)");
  container.append(metrics.el);
  charts.push(new Chart(metrics.canvas, {
    type: "bar",
    data: {
      labels: [...METRICS],
      datasets: engines.map((engine, i) => ({
        label: engine,
        data: METRICS.map((m) => data.metrics[engine][m] * 100),
        backgroundColor: colour(i),
      })),
    },
    options: percentAxis(),
  }));

  const recall = figure("recall", "Recall@k", "(share of expected items in the top k, k = 1…10)");
  container.append(recall.el);
  charts.push(new Chart(recall.canvas, {
    type: "line",
    data: {
      labels: Array.from({ length: 10 }, (_, i) => String(i + 1)),
      datasets: engines.map((engine, i) => ({
        label: engine,
        data: data.recall_at_k[engine].map((r) => r * 100),
        borderColor: colour(i),
        backgroundColor: colour(i),
        tension: 0.2,
      })),
    },
    options: { ...percentAxis(), scales: { ...percentAxis().scales, x: { title: { display: true, text: "k" } } } },
  }));

  const latency = figure("latency", "Latency distribution", "(queries per time bin; bins log-spaced; p50 / p99 in the legend)");
  container.append(latency.el);
  const edges = data.latency.edges;
  charts.push(new Chart(latency.canvas, {
    type: "line",
    data: {
      labels: edges.slice(0, -1).map((low, i) => `${formatMs(low)}–${formatMs(edges[i + 1])}`),
      datasets: engines.map((engine, i) => {
        const l = data.latency.engines[engine];
        return {
          label: `${engine} (p50 ${formatMs(l.p50)}, p99 ${formatMs(l.p99)} ms)`,
          data: l.counts,
          borderColor: colour(i),
          backgroundColor: colour(i),
          stepped: "middle" as const,
          pointRadius: 0,
        };
      }),
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      scales: { x: { title: { display: true, text: "ms" }, ticks: { maxRotation: 60, autoSkip: true } }, y: { title: { display: true, text: "queries" }, beginAtZero: true } },
    },
  }));
  return charts;
}

function percentAxis() {
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false as const,
    scales: { y: { min: 0, max: 100, title: { display: true, text: "%" } } },
    plugins: { tooltip: { callbacks: { label: (c: { dataset: { label?: string }; parsed: { y: number | null } }) => `${c.dataset.label}: ${(c.parsed.y ?? 0).toFixed(1)}%` } } },
  };
}

function formatMs(ms: number): string {
  return ms >= 10 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms >= 0.1 ? ms.toFixed(2) : ms.toFixed(3);
}
