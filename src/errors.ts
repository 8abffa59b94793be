/**
 * One catalogue of every error a user can cause, so that the CLI, the agent loop and the MCP gateway word them alike.
 * Each error has a stable `code` (for programs) and a message that names the file, the item and the rule (for people).
 */

/** Stable error codes. Programs may match on these; messages may improve over time. */
export const ErrorCodes = {
  /** A file could not be read at all (missing, a directory, permissions). */
  file_unreadable: "file_unreadable",
  /** A file was read but its syntax is broken (JSON, JSONL or YAML). */
  file_parse: "file_parse",
  /** A catalog file parsed but one or more tools break a rule of SPEC §3. */
  catalog_invalid: "catalog_invalid",
  /** A document set parsed but one or more documents break a rule. */
  documents_invalid: "documents_invalid",
  /** A labelled-queries file breaks a rule (missing field, unknown label). */
  queries_invalid: "queries_invalid",
  /** A regex pattern is longer than 200 characters. */
  pattern_too_long: "pattern_too_long",
  /** A regex pattern does not compile, or uses a construct RE2 refuses. */
  invalid_pattern: "invalid_pattern",
  /** A tool name that is not in the catalog. */
  unknown_tool: "unknown_tool",
  /** A document id that is not in the knowledge base. */
  unknown_document: "unknown_document",
  /** An engine name that does not exist or is not available in this index. */
  unknown_engine: "unknown_engine",
  /** A numeric option outside its allowed range (limit, offset …). */
  invalid_option: "invalid_option",
  /** A tool added to an index breaks a catalog rule (name, schema, duplicate). */
  tool_invalid: "tool_invalid",
  /** `lint --fail-on` found findings at or above the chosen severity (the CI signal; the report is on stdout). */
  lint_failed: "lint_failed",
  /** An API request toolsearch built or was given breaks a rule of the API (no non-deferred tool, bad name …). */
  request_invalid: "request_invalid",
  /** An MCP gateway configuration file breaks a rule (names the server and the field). */
  config_invalid: "config_invalid",
  /** Arguments of a tool call do not match the tool's input schema (names the field). */
  invalid_arguments: "invalid_arguments",
  /** An upstream MCP server is down, starting or restarting, so its tools cannot be called right now. */
  upstream_unavailable: "upstream_unavailable",
  /** An upstream MCP server did not answer a call in time. */
  upstream_timeout: "upstream_timeout",
  /** An embedding provider failed (model load, HTTP error after retries, wrong vector size). */
  embedding_failed: "embedding_failed",
  /** A collection name that the service's store does not hold. */
  unknown_collection: "unknown_collection",
  /** A request to the service without a key, or with a key the store does not know (or revoked). */
  unauthorized: "unauthorized",
  /** The key is valid but its scope (or its collection) does not allow this request. */
  forbidden: "forbidden",
  /** The request conflicts with the current state (e.g. a collection of another kind under that name). */
  conflict: "conflict",
  /** `If-Match` named an ETag that is not the item's current one; nothing was changed. */
  precondition_failed: "precondition_failed",
  /** A request body over the service's size limit. */
  payload_too_large: "payload_too_large",
  /** Too many requests for this key in the current window. */
  rate_limited: "rate_limited",
  /** The service (or this replica) has not finished loading or catching up. */
  not_ready: "not_ready",
  /** The store (database) cannot be reached or failed; nothing was changed. */
  store_unavailable: "store_unavailable",
  /** An OpenAPI document that cannot be imported: not OpenAPI, an unsupported version, a broken `$ref`. */
  openapi_invalid: "openapi_invalid",
  /** An output file (e.g. `eval --report`) could not be written. */
  file_unwritable: "file_unwritable",
  /** The service did not finish a read (search, lint) within its request timeout; retrying may succeed. */
  request_timeout: "request_timeout",
  /** A fault of the service itself (a bug): the request may be retried; the logs say more. */
  internal_error: "internal_error",
  /** A JSON Schema nested deeper or holding more than the limits (`SCHEMA_LIMITS`); refused before it is read. */
  schema_too_large: "schema_too_large",
  /** The command line itself is wrong (unknown command or flag, missing argument): exit code 2. */
  invalid_usage: "invalid_usage",
  /** A package a feature needs is not installed or its native module is not built (names the package and the fix). */
  dependency_missing: "dependency_missing",
  /** An index snapshot is damaged, of another format or kind, or was built with other analysis settings. */
  snapshot_invalid: "snapshot_invalid",
  /** Synonyms or pinned-result rules of a collection break a rule (shape, sizes); nothing was changed. */
  curation_invalid: "curation_invalid",
  /** A bearer token that is a JWT but fails verification: signature, unknown key, algorithm, issuer, audience, exp, nbf. */
  invalid_token: "invalid_token",
  /** The key that seals stored secrets is missing, malformed, readable by others, or not the key they were sealed with. */
  secret_key_invalid: "secret_key_invalid",
  /** A remote upstream server needs an OAuth login (`toolsearch mcp login NAME`) before its tools can be called. */
  login_required: "login_required",
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

/** Where a problem sits: which file, which item, which rule. */
export interface ErrorLocation {
  file?: string;
  /** Zero-based position of the item in the file. */
  index?: number;
  /** The item's name or id, when it has one. */
  name?: string;
  /** The rule that was broken, in a few words (e.g. "name must match ^[a-zA-Z0-9_-]{1,64}$"). */
  rule?: string;
}

/** One problem found while validating a file; a refused file carries all of them. */
export interface Problem extends ErrorLocation {
  message: string;
  /** A more precise code than the refusal's own, when one applies (e.g. `schema_too_large` inside `catalog_invalid`). */
  code?: ErrorCode;
}

/** The error type thrown for anything a user can fix. `code` is stable; `problems` lists every finding. */
export class ToolsearchError extends Error {
  readonly code: ErrorCode;
  readonly problems: Problem[];
  /** Extra machine-readable facts (e.g. `suggestions` for an unknown name). */
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: { problems?: Problem[]; details?: Record<string, unknown> } = {}) {
    super(message);
    this.name = "ToolsearchError";
    this.code = code;
    this.problems = options.problems ?? [];
    this.details = options.details ?? {};
  }
}

/** Formats "file: item 3 (get_weather): rule" — the shape every validation message uses. */
export function describeLocation(location: ErrorLocation): string {
  const parts: string[] = [];
  if (location.file) parts.push(location.file);
  if (location.index !== undefined || location.name) {
    const item = location.index !== undefined ? `item ${location.index}` : "item";
    parts.push(location.name ? `${item} (${JSON.stringify(location.name)})` : item);
  }
  return parts.join(": ");
}

/** Builds the error for a refused file from all the problems found in it; the message lists up to 20 of them. */
export function refusedFile(code: ErrorCode, file: string, problems: Problem[]): ToolsearchError {
  const shown = problems.slice(0, 20).map((p) => `  - ${describeLocation(p) || file}: ${p.message}`);
  const more = problems.length > 20 ? [`  … and ${problems.length - 20} more`] : [];
  const what = code === "documents_invalid" ? "document set" : code === "queries_invalid" ? "queries file" : "catalog";
  const head = `${file}: ${what} refused, nothing was loaded (${problems.length} problem${problems.length === 1 ? "" : "s"}):`;
  return new ToolsearchError(code, [head, ...shown, ...more].join("\n"), { problems });
}

/** Error for a name that is not there, with the closest names as suggestions. */
export function unknownName(code: "unknown_tool" | "unknown_document", name: string, suggestions: string[]): ToolsearchError {
  const what = code === "unknown_tool" ? "tool" : "document id";
  const hint = suggestions.length ? ` Did you mean: ${suggestions.join(", ")}?` : "";
  const back = code === "unknown_document" ? " Search first (search_docs) and use an id from its results." : "";
  return new ToolsearchError(code, `Unknown ${what} ${JSON.stringify(name)}.${hint}${back}`, { details: { suggestions } });
}
