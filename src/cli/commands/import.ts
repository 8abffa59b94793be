/** `toolsearch import openapi SPEC… [--out FILE] [--prefix NAME] [--base-url URL | --server S] [--server-var K=V…] [--json]` */
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { normalizeTools } from "../../catalog/load.js";
import { ToolsearchError } from "../../errors.js";
import { catalogFromOpenApi, type OpenApiCatalog } from "../../openapi/catalog.js";
import { NameRegistry } from "../../openapi/names.js";
import { printJson, printLines } from "../output.js";

/** Notes printed per document; a large API can have thousands (the JSON report keeps them all). */
const MAX_NOTES = 20;

interface ImportFlags {
  out?: string;
  prefix?: string;
  baseUrl?: string;
  server?: string;
  serverVar?: string[];
  json?: boolean;
}

export function registerImport(program: Command): void {
  const command = program.command("import").description("turn other descriptions of tools into a catalog");
  command
    .command("openapi")
    .description("one tool per operation of OpenAPI 3.0/3.1 or Swagger 2.0 documents (JSON or YAML)")
    .argument("<spec...>", "OpenAPI documents")
    .option("-o, --out <file>", "write the catalog here (default: print it on stdout and the report on stderr)")
    .option("--prefix <name>", "put NAME__ before every tool name")
    .option("--base-url <url>", "the server to call, recorded in each tool (overrides the documents' servers)")
    .option("--server <index|name>", "which of the documents' servers to call: its index (0 is the first), URL or description")
    .option("--server-var <name=value...>", "a server variable's value (replacing its default), e.g. region=eu")
    .option("--json", "with --out: print the report as JSON ({specs:[{source, tools, skipped, warnings}]})")
    .action(async (specs: string[], flags: ImportFlags) => {
      const names = new NameRegistry();
      const catalogs: OpenApiCatalog[] = [];
      const servers = { server: serverFlag(flags.server), serverVariables: serverVariables(flags.serverVar) };
      for (const spec of specs) catalogs.push(await catalogFromOpenApi(spec, { prefix: flags.prefix, baseUrl: flags.baseUrl, names, ...servers }));
      const tools = catalogs.flatMap((c) => c.tools);
      nothingImported(catalogs);
      checkLoadable(tools);
      const text = `${JSON.stringify(tools, null, 2)}\n`;
      if (flags.out) writeFileSync(flags.out, text);
      else process.stdout.write(text);
      const report = catalogs.map((c) => ({
        source: c.source, title: c.title, version: c.convertedFrom ? `${c.convertedFrom} (converted to ${c.version})` : c.version,
        tools: c.tools.length, skipped: c.skipped, warnings: c.warnings,
      }));
      if (flags.out && flags.json) return printJson({ out: flags.out, specs: report });
      const lines = report.flatMap((r) => [
        `${r.source}: ${r.tools} tool${r.tools === 1 ? "" : "s"} from "${r.title}" (OpenAPI ${r.version})${r.skipped.length ? `, ${r.skipped.length} operation${r.skipped.length === 1 ? "" : "s"} skipped` : ""}`,
        ...r.skipped.map((s) => `  skipped ${s.method} ${s.path}${s.operationId ? ` (${s.operationId})` : ""}: ${s.reason}`),
        ...r.warnings.slice(0, MAX_NOTES).map((w) => `  note: ${w}`),
        ...(r.warnings.length > MAX_NOTES ? [`  … and ${r.warnings.length - MAX_NOTES} more notes (--out FILE --json lists them all)`] : []),
      ]);
      if (flags.out) printLines([...lines, `wrote ${tools.length} tools to ${flags.out}`]);
      else process.stderr.write(`${lines.join("\n")}\n`);
    });
}

/** `--server 1` is an index, anything else a URL or description. */
function serverFlag(value: string | undefined): number | string | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : value;
}

function serverVariables(pairs: string[] | undefined): Record<string, string> | undefined {
  if (!pairs) return undefined;
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at < 1) throw new ToolsearchError("invalid_option", `--server-var takes name=value (got ${JSON.stringify(pair)})`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/**
 * An import that found operations but could make none of them a tool fails (exit 1) with the reasons; one that made
 * any succeeds, reporting what it skipped.
 */
function nothingImported(catalogs: OpenApiCatalog[]): void {
  if (catalogs.some((c) => c.tools.length > 0)) return;
  const skipped = catalogs.flatMap((c) => c.skipped.map((s) => `${c.source}: ${s.method} ${s.path}: ${s.reason}`));
  if (skipped.length === 0) return;
  const shown = skipped.slice(0, MAX_NOTES).join("\n");
  const more = skipped.length > MAX_NOTES ? `\n… and ${skipped.length - MAX_NOTES} more` : "";
  throw new ToolsearchError("openapi_invalid", `none of the ${skipped.length} operation${skipped.length === 1 ? "" : "s"} could be imported:\n${shown}${more}`);
}

/** The catalog must load as it is written; a failure here is an importer bug, reported rather than written out. */
function checkLoadable(tools: unknown[]): void {
  try {
    normalizeTools(tools, "imported catalog");
  } catch (error) {
    if (error instanceof ToolsearchError) throw new ToolsearchError("openapi_invalid", `the imported tools do not form a valid catalog:\n${error.message}`);
    throw error;
  }
}
