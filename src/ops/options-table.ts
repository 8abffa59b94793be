/**
 * The option table of a command as Markdown, made from its option definitions (flags, environment names, defaults,
 * descriptions), so docs/service.md cannot drift from what `serve` accepts: scripts/options-table.ts writes it
 * between markers, and a test fails when the page differs.
 */
import type { Command, Option } from "commander";
import { envSettingOf } from "./settings.js";

/** The markers around a generated table in a Markdown page. */
export function tableMarkers(name: string): { start: string; end: string } {
  return {
    start: `<!-- options:${name} start: generated from the option definitions by scripts/options-table.ts; do not edit -->`,
    end: `<!-- options:${name} end -->`,
  };
}

/** One row per option of `command`, in the order `--help` lists them. */
export function optionsTable(command: Command): string {
  const rows = command.options.map((option) => `| ${code(option.flags)} | ${environment(option)} | ${defaultOf(option)} | ${cell(option.description)} |`);
  return ["| flag | environment | default | meaning |", "|---|---|---|---|", ...rows].join("\n");
}

/** `page` with the text between `name`'s markers replaced by `table`; throws when the markers are missing. */
export function replaceBetweenMarkers(page: string, name: string, table: string): string {
  const { start, end } = tableMarkers(name);
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  if (from < 0 || to < from) throw new Error(`the page has no ${start} … ${end} markers`);
  return `${page.slice(0, from + start.length)}\n${table}\n${page.slice(to)}`;
}

function environment(option: Option): string {
  const setting = envSettingOf(option);
  if (!setting) return "";
  return setting.names.flatMap((name) => (setting.secret ? [name, `${name}_FILE`] : [name])).map(code).join(", ");
}

function defaultOf(option: Option): string {
  if (option.defaultValueDescription) return cell(option.defaultValueDescription);
  const value = option.defaultValue;
  if (!option.required && !option.optional) return "off"; // a flag, given or not (`--no-auth` is off: auth is on)
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return "";
  return code(Array.isArray(value) ? value.join(",") : String(value));
}

function code(text: string): string {
  return `\`${text.replace(/\|/g, "\\|")}\``;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}
