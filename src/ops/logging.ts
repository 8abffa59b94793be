/**
 * What `serve` writes (SPEC §18). `--log json` (the default when stdout is not a terminal, as in a container): every
 * line is one JSON object on stdout — fastify's request lines, the service's notes, the "listening" line, upstream
 * servers' stderr (tagged with `server`), and, through `captureStdio`, whatever else writes to the process's stdout
 * or stderr (Node's warnings, a library's message). `--log text` (the default on a terminal): notes as plain lines
 * on stderr, the "listening" line on stdout, request lines as JSON on stderr.
 *
 * Nothing here prints a secret: request lines carry no headers or bodies (and the headers that carry credentials,
 * `SECRET_HEADERS`, are redacted in every logger should one be logged), upstream lines are masked by the upstream's own redactor, and store URLs are shown without passwords.
 *
 * @example
 * const log = new ProcessLog(logSettings(flags.log, flags.logLevel), "serve");
 * const release = log.captureStdio();
 * log.note("ready: 3 collection(s)");
 */
import { type DestinationStream, type Logger, pino } from "pino";

export type LogFormat = "json" | "text";

export const LOG_FORMATS: LogFormat[] = ["json", "text"];
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** How the process logs. */
export interface LogSettings {
  format: LogFormat;
  /** The level of request lines (notes are always written). */
  level: string;
}

/**
 * Reads `--log` (a format, or for compatibility a level) and `--log-level`; the format defaults to JSON when
 * stdout is not a terminal. Throws a message naming the bad value.
 */
export function logSettings(log: string | undefined, level: string | undefined, stdoutIsTty = Boolean(process.stdout.isTTY)): LogSettings {
  const isLevel = (value: string) => (LOG_LEVELS as readonly string[]).includes(value);
  if (log !== undefined && !LOG_FORMATS.includes(log as LogFormat) && !isLevel(log)) {
    throw new Error(`--log takes json or text (or a level: ${LOG_LEVELS.join(", ")}); got ${JSON.stringify(log)}`);
  }
  if (level !== undefined && !isLevel(level)) throw new Error(`--log-level takes ${LOG_LEVELS.join(", ")}; got ${JSON.stringify(level)}`);
  const format = LOG_FORMATS.includes(log as LogFormat) ? (log as LogFormat) : stdoutIsTty ? "text" : "json";
  return { format, level: level ?? (log !== undefined && isLevel(log) ? log : "info") };
}

/**
 * Headers that carry a credential here: API keys and OAuth tokens come as `Authorization: Bearer`, through a proxy as
 * `Proxy-Authorization`, as `X-API-Key` (the name OpenAPI sources default to), and a browser's session as cookies.
 */
export const SECRET_HEADERS = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"] as const;

/**
 * pino `redact` paths: every secret header wherever a log line could carry headers (a request or reply, pino's
 * `req`/`res` serializers, or a bare `headers` object). Used by every logger the process writes with.
 */
export const REDACTED_PATHS: string[] = ["req.headers", "res.headers", "request.headers", "reply.headers", "headers"].flatMap((at) => SECRET_HEADERS.map((name) => `${at}["${name}"]`));

/** pino options with `REDACTED_PATHS` added to whatever `redact` the caller gave (a list, or `{paths, …}`). */
export function withRedaction(options: Record<string, unknown>): Record<string, unknown> {
  const given = options.redact;
  if (given && typeof given === "object" && !Array.isArray(given)) {
    const paths = (given as { paths?: string[] }).paths ?? [];
    return { ...options, redact: { ...given, paths: [...new Set([...REDACTED_PATHS, ...paths])] } };
  }
  return { ...options, redact: [...new Set([...REDACTED_PATHS, ...((given as string[] | undefined) ?? [])])] };
}

/** The process's log: one destination for fastify and for the notes of `component` (e.g. `serve`). */
export class ProcessLog {
  readonly format: LogFormat;
  readonly level: string;
  private readonly destination: DestinationStream & { flushSync(): void };
  private readonly notes: Logger;
  private readonly component: string;

  /** `destination` is for tests; by default, stdout for JSON logs, else stderr. */
  constructor(settings: LogSettings, component: string, destination?: DestinationStream & { flushSync(): void }) {
    this.format = settings.format;
    this.level = settings.level;
    this.component = component;
    // Buffered, asynchronous writes: a synchronous write per line would cost every request a syscall.
    this.destination = destination ?? pino.destination({ dest: settings.format === "json" ? 1 : 2, sync: false });
    this.notes = pino(withRedaction({ level: "info", timestamp: pino.stdTimeFunctions.isoTime }), this.destination);
  }

  /** fastify's logger options: its request lines go to the same destination, at `level`. */
  fastifyLogger(): false | Record<string, unknown> {
    if (this.level === "silent") return false;
    return withRedaction({ level: this.level, stream: this.destination, timestamp: pino.stdTimeFunctions.isoTime });
  }

  /** A note about the service (a collection kept, ready, stopping …), with optional fields. */
  note(message: string, fields: Record<string, unknown> = {}): void {
    if (this.format === "json") this.notes.info(fields, message);
    else process.stderr.write(`toolsearch ${this.component}: ${message}\n`);
  }

  /** A problem the operator should see. */
  warn(message: string, fields: Record<string, unknown> = {}): void {
    if (this.format === "json") this.notes.warn(fields, message);
    else process.stderr.write(`toolsearch ${this.component}: ${message}\n`);
  }

  /**
   * The "listening" line. As text on stdout; as JSON with a `url` field, and the URL followed by a space in the
   * message so that scripts that read the URL after "listening on" up to a space find it either way.
   */
  listening(url: string, detail: string): void {
    const message = `listening on ${url} (${detail})`;
    if (this.format === "json") this.notes.info({ url }, message);
    else process.stdout.write(`toolsearch ${this.component}: ${message}\n`);
  }

  /** One line an upstream MCP server wrote to its stderr (already masked by its redactor). */
  upstreamStderr(server: string, line: string): void {
    if (this.format === "json") this.notes.info({ server, source: "upstream-stderr" }, line);
    // As text, the line is kept only for error messages (the tail the upstream reports), as before.
  }

  /** A plain `(line) => void` writer for modules that take one (the audit log, the collections). */
  get writer(): (line: string) => void {
    return (line) => this.note(line.replace(/^toolsearch( \w+)?: /, ""));
  }

  /**
   * With JSON logs, makes every other line written to the process's stdout or stderr a JSON object on stdout (a line
   * that already is one passes as it is). Returns the function that puts both streams back.
   */
  captureStdio(): () => void {
    if (this.format !== "json") return () => {};
    const restore = [captureLines(process.stderr, (line) => this.passLine(line, "stderr")), captureLines(process.stdout, (line) => this.passLine(line, "stdout"))];
    return () => restore.forEach((undo) => undo());
  }

  private passLine(line: string, source: string): void {
    if (line.startsWith("{") && line.endsWith("}")) {
      try {
        JSON.parse(line);
        this.destination.write(`${line}\n`);
        return;
      } catch {
        // Not JSON after all: wrapped below.
      }
    }
    // stderr carries diagnostics (Node's warnings, errors at start-up): warn level; stdout's lines are info.
    const level = source === "stderr" ? "warn" : "info";
    this.notes[level]({ source }, line.replace(/^toolsearch( \w+)?: /, ""));
  }

  /** Writes what is buffered (at exit). */
  flush(): void {
    try {
      this.destination.flushSync();
    } catch {
      // Nothing buffered yet (the destination opens asynchronously): nothing to lose.
    }
  }
}

/** Replaces `stream.write` with one that hands each complete line to `onLine`; returns the undo. */
function captureLines(stream: NodeJS.WriteStream, onLine: (line: string) => void): () => void {
  const original = stream.write;
  let partial = "";
  stream.write = ((chunk: string | Uint8Array, encodingOrDone?: unknown, done?: unknown) => {
    partial += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    const lines = partial.split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) onLine(line.trimEnd());
    const callback = typeof encodingOrDone === "function" ? encodingOrDone : done;
    if (typeof callback === "function") queueMicrotask(() => (callback as () => void)());
    return true;
  }) as typeof stream.write;
  return () => {
    stream.write = original;
  };
}
