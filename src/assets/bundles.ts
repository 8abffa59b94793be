/**
 * The browser bundles of the eval report and the web console, built by esbuild from `src/console/`.
 *
 * A published package ships them prebuilt next to this module (`dist/assets/web/`, written by `npm run build`). When
 * running from source (tests, `npm run toolsearch`) there is no such folder, and they are built in memory on first
 * use (esbuild is a dev dependency, so it is there whenever the sources are); a build takes well under a second.
 *
 * @example
 * const { js, css } = await reportBundle(); // inlined into the HTML report
 * const files = await consoleFiles();        // served by the console plugin: "index.html", "app.js", …
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolsearchError } from "../errors.js";

/** One file of the console: its bytes and content type. */
export interface WebFile {
  body: Buffer;
  type: string;
}

const PREBUILT = fileURLToPath(new URL("./web/", import.meta.url));
const SOURCES = fileURLToPath(new URL("../console/", import.meta.url));
const REPORT_JS = "report.js";
const REPORT_CSS = "report.css";
const CONSOLE_DIR = "console";

let built: Promise<Map<string, Buffer>> | undefined;

/** Every bundle, by relative path: the report's two files and the console's folder. */
function allFiles(): Promise<Map<string, Buffer>> {
  built ??= existsSync(join(PREBUILT, REPORT_JS)) ? Promise.resolve(readPrebuilt()) : buildInMemory();
  return built;
}

function readPrebuilt(): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const name of readdirSync(PREBUILT, { recursive: true }) as string[]) {
    const path = join(PREBUILT, name);
    if (statSync(path).isFile()) files.set(name.split(sep).join("/"), readFileSync(path));
  }
  return files;
}

/** Builds every bundle with esbuild (minified); returns the files by relative path. */
export async function buildInMemory(): Promise<Map<string, Buffer>> {
  if (!existsSync(SOURCES)) {
    throw new ToolsearchError("file_unreadable", `${PREBUILT}: the console and report bundles are missing from this install; reinstall toolsearch (or run npm run build in a checkout).`);
  }
  const esbuild = await import("esbuild");
  const common = { bundle: true, minify: true, write: false, target: ["es2020", "chrome100", "firefox100", "safari15"], legalComments: "none" as const, logLevel: "silent" as const };
  const files = new Map<string, Buffer>();
  const report = await esbuild.build({ ...common, entryPoints: { report: join(SOURCES, "report/main.ts") }, format: "iife", outdir: "/out" });
  const css = await esbuild.build({ ...common, entryPoints: { styles: join(SOURCES, "styles.css") }, outdir: "/out" });
  const app = await esbuild.build({ ...common, entryPoints: { app: join(SOURCES, "app/main.ts") }, format: "esm", splitting: true, outdir: "/out", chunkNames: "chunk-[hash]" });
  for (const f of report.outputFiles ?? []) files.set(REPORT_JS, Buffer.from(f.contents));
  for (const f of css.outputFiles ?? []) {
    files.set(REPORT_CSS, Buffer.from(f.contents));
    files.set(`${CONSOLE_DIR}/styles.css`, Buffer.from(f.contents));
  }
  for (const f of app.outputFiles ?? []) files.set(`${CONSOLE_DIR}/${basename(f.path)}`, Buffer.from(f.contents));
  files.set(`${CONSOLE_DIR}/index.html`, Buffer.from(consoleHtml()));
  return files;
}

/** Writes the bundles where a built package looks for them (`npm run build`). */
export async function writeBundles(outDir: string): Promise<string[]> {
  const files = await buildInMemory();
  for (const [name, body] of files) {
    const path = join(outDir, name);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, body);
  }
  return [...files.keys()];
}

/** The report's script and stylesheet, to inline. */
export async function reportBundle(): Promise<{ js: string; css: string }> {
  const files = await allFiles();
  return { js: files.get(REPORT_JS)!.toString("utf8"), css: files.get(REPORT_CSS)!.toString("utf8") };
}

const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8" };

/** The console's files by name (`index.html`, `app.js`, `styles.css`, `chunk-….js`). */
export async function consoleFiles(): Promise<Map<string, WebFile>> {
  const out = new Map<string, WebFile>();
  for (const [name, body] of await allFiles()) {
    if (!name.startsWith(`${CONSOLE_DIR}/`)) continue;
    const file = name.slice(CONSOLE_DIR.length + 1);
    out.set(file, { body, type: TYPES[file.slice(file.lastIndexOf("."))] ?? "application/octet-stream" });
  }
  return out;
}

function consoleHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolsearch console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/styles.css">
<script type="module" src="/console/app.js"></script>
</head>
<body><div id="app"><p style="padding:24px">Loading the toolsearch console…</p></div></body>
</html>
`;
}
