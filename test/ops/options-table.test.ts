/**
 * docs/service.md's option table is generated from serve's option definitions: this fails when the page differs
 * (run `node --import tsx scripts/options-table.ts`), and checks the table says what the options are.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Command } from "commander";
import { buildProgram } from "../../src/cli/program.js";
import { optionsTable, replaceBetweenMarkers, tableMarkers } from "../../src/ops/options-table.js";
import { attachEnvironment } from "../../src/ops/settings.js";

const PAGE = new URL("../../docs/service.md", import.meta.url);

test("docs/service.md holds the table generated from serve's options", async () => {
  const serve = (await buildProgram({ argv: ["serve"] })).commands.find((command) => command.name() === "serve")!;
  const page = readFileSync(PAGE, "utf8");
  assert.equal(page, replaceBetweenMarkers(page, "serve", optionsTable(serve)), "docs/service.md is out of date: run node --import tsx scripts/options-table.ts");
  // Every option is a row, with its variable.
  for (const option of serve.options) assert.ok(page.includes(`| \`${option.flags.replace(/\|/g, "\\|")}\` | \`TOOLSEARCH_`), option.flags);
});

test("a row gives the flag, its variables (with _FILE for a secret), the default and the description", () => {
  const program = new Command("toolsearch");
  program
    .command("serve")
    .option("--store <path|url>", "where")
    .option("--port <n>", "TCP port", (value) => Number(value), 8080)
    .option("--no-auth", "no keys")
    .option("--preload <names...>", "load these", []);
  attachEnvironment(program);
  const table = optionsTable(program.commands[0]).split("\n");
  assert.deepEqual(table.slice(2), [
    "| `--store <path\\|url>` | `TOOLSEARCH_STORE`, `TOOLSEARCH_STORE_FILE` |  | where |",
    "| `--port <n>` | `TOOLSEARCH_PORT`, `PORT` | `8080` | TCP port |",
    "| `--no-auth` | `TOOLSEARCH_NO_AUTH` | off | no keys |",
    "| `--preload <names...>` | `TOOLSEARCH_PRELOAD` |  | load these |",
  ]);
  const { start, end } = tableMarkers("serve");
  assert.equal(replaceBetweenMarkers(`a\n${start}\nold\n${end}\nb`, "serve", "new"), `a\n${start}\nnew\n${end}\nb`);
  assert.throws(() => replaceBetweenMarkers("no markers", "serve", "new"), /no <!-- options:serve start/);
});
