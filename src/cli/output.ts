/** How every command prints: JSON on stdout with `--json`, text otherwise; errors on stderr with SPEC §4 exit codes. */
import { ToolsearchError } from "../errors.js";

/** Exit codes of SPEC §4. */
export const EXIT = { ok: 0, userError: 1, usage: 2 } as const;

/** A usage error (bad flag value): exit code 2. */
export class UsageError extends Error {}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLines(lines: string[]): void {
  process.stdout.write(lines.length ? `${lines.join("\n")}\n` : "");
}

/** Reports an error and returns the exit code it maps to. */
export function reportError(error: unknown): number {
  if (error instanceof UsageError) {
    process.stderr.write(`toolsearch: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof ToolsearchError) {
    process.stderr.write(`toolsearch: ${error.message}\n`);
    return EXIT.userError;
  }
  process.stderr.write(`toolsearch: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return EXIT.userError;
}

/** Parses a whole-number option, or throws a usage error naming the flag. */
export function parseInteger(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max) throw new UsageError(`${flag} takes a whole number from ${min} to ${max} (got ${JSON.stringify(value)})`);
    return n;
  };
}

/** A table of aligned columns for human output. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ").trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
}
