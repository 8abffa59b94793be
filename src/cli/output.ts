/** How every command prints: JSON on stdout with `--json`, text otherwise; errors on stderr with SPEC §4 exit codes. */
import { type ErrorCode, ToolsearchError } from "../errors.js";

/** Exit codes of SPEC §4. */
export const EXIT = { ok: 0, userError: 1, usage: 2 } as const;

/** A usage error (bad flag value, unknown flag): exit code 2. */
export class UsageError extends Error {
  constructor(message: string, readonly code: "invalid_option" | "invalid_usage" = "invalid_option") {
    super(message);
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLines(lines: string[]): void {
  process.stdout.write(lines.length ? `${lines.join("\n")}\n` : "");
}

/** The one-line JSON form of an error on stderr (SPEC §4): `{"error":{"code","message","details?"}}`. */
export function errorLine(code: ErrorCode, message: string, details: Record<string, unknown> = {}): string {
  const body = Object.keys(details).length ? { code, message, details } : { code, message };
  return `${JSON.stringify({ error: body })}\n`;
}

/** A ToolsearchError's details, with the problems of a refused file among them. */
function detailsOf(error: ToolsearchError): Record<string, unknown> {
  return error.problems.length ? { ...error.details, problems: error.problems } : error.details;
}

/**
 * Reports an error on stderr and returns the exit code it maps to: one line of JSON with its stable code when `json`,
 * else a message for people (a stack trace only for a fault of toolsearch itself, to put in a bug report).
 */
export function reportError(error: unknown, json = false): number {
  if (error instanceof UsageError) {
    process.stderr.write(json ? errorLine(error.code, error.message) : `toolsearch: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof ToolsearchError) {
    process.stderr.write(json ? errorLine(error.code, error.message, detailsOf(error)) : `toolsearch: ${error.message}\n`);
    return EXIT.userError;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (json) process.stderr.write(errorLine("internal_error", `unexpected error: ${message}`));
  else process.stderr.write(`toolsearch: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return EXIT.userError;
}

/**
 * Ends the process quietly when the reader of its output goes away (`toolsearch … | head -c 100`), as Unix tools do,
 * instead of dying on an unhandled EPIPE with a stack trace.
 */
export function exitQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
      process.exit(typeof process.exitCode === "number" ? process.exitCode : EXIT.ok);
    });
  }
}

/** Parses a whole-number option, or throws a usage error naming the flag. */
export function parseInteger(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max) throw new UsageError(`${flag} takes a whole number from ${min} to ${max} (got ${JSON.stringify(value)})`);
    return n;
  };
}

/** Parses an option that takes one of a few words, or throws a usage error naming the flag and the words. */
export function parseChoice<T extends string>(flag: string, choices: readonly T[]) {
  return (value: string): T => {
    if (!(choices as readonly string[]).includes(value)) throw new UsageError(`${flag} takes ${choices.join(", ")} (got ${JSON.stringify(value)})`);
    return value as T;
  };
}

/** A table of aligned columns for human output. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ").trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
}
