/**
 * Writes the option table of `toolsearch serve` into docs/service.md, between its markers, from the option
 * definitions (src/ops/options-table.ts). With --check it writes nothing and exits 1 when the page is out of date.
 * Usage: node --import tsx scripts/options-table.ts [--check]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildProgram } from "../src/cli/program.js";
import { optionsTable, replaceBetweenMarkers } from "../src/ops/options-table.js";

const page = fileURLToPath(new URL("../docs/service.md", import.meta.url));
const serve = (await buildProgram({ argv: ["serve"] })).commands.find((command) => command.name() === "serve")!;
const before = readFileSync(page, "utf8");
const after = replaceBetweenMarkers(before, "serve", optionsTable(serve));
if (process.argv.includes("--check")) {
  if (after !== before) {
    process.stderr.write("docs/service.md: the serve option table differs from the options; run node --import tsx scripts/options-table.ts\n");
    process.exit(1);
  }
} else if (after !== before) {
  writeFileSync(page, after);
  process.stdout.write("docs/service.md: serve option table updated\n");
}
