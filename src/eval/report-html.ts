/**
 * The eval report as one self-contained HTML file (SPEC §12): the report's script, stylesheet and data are inlined,
 * so the file opens offline, from disk or an e-mail attachment, and makes no network request.
 *
 * @example
 * const html = await renderReportHtml(await buildReportData(queries, report, runs, { explain }));
 * writeFileSync("report.html", html);
 */
import { reportBundle } from "../assets/bundles.js";
import type { ReportData } from "./report-data.js";

/** JSON safe inside a `<script>` element: no `</script>`, no `<!--`, and no line separators that old parsers trip on. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/** Text safe inside an HTML element. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
}

export async function renderReportHtml(data: ReportData): Promise<string> {
  const { js, css } = await reportBundle();
  // A script's text may not contain "</script"; the minified bundle has none, but make sure.
  const safeJs = js.replace(/<\/script/gi, "<\\/script");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(data.title)}</title>
<style>${css}</style>
</head>
<body>
<main id="report"></main>
<script type="application/json" id="report-data">${scriptSafeJson(data)}</script>
<script>${safeJs}</script>
</body>
</html>
`;
}
