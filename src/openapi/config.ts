/**
 * The `"openapi"` block of a gateway (or service) configuration, beside `mcpServers` (SPEC §13):
 *
 * ```json
 * "openapi": { "clinic": { "spec": "clinic.yaml", "baseUrl": "http://127.0.0.1:8080/api/v1",
 *                          "auth": { "bearer": "${CLINIC_TOKEN}" } } }
 * ```
 *
 * Checked here for shape only; `${VAR}`s are filled when the API is started, so a configuration can be checked
 * without its secrets. A relative `spec` path is read from the configuration file's folder.
 */
import { dirname, isAbsolute, resolve } from "node:path";
import type { Problem } from "../errors.js";

/** One API to serve as tools. */
export interface OpenApiSourceConfig {
  /** The OpenAPI document (JSON or YAML file). */
  spec: string;
  /** Where requests go (default: the document's first server, or the one `server` names). */
  baseUrl?: string;
  /** Which of the document's servers: an index (0 is the first) or a server's URL or description. */
  server?: number | string;
  /** Server variable values replacing their defaults (`${VAR}` allowed). */
  serverVariables?: Record<string, string>;
  /** `{"bearer": T}`, `{"basic": {"username", "password"}}` or `{"apiKey": V}`; `${VAR}` from the environment. */
  auth?: unknown;
  /** Headers sent with every request (`${VAR}` allowed). */
  headers?: Record<string, string>;
  /** Milliseconds before a request is given up on (default 30 000). */
  timeoutMs?: number;
  /** Most bytes of a response kept (default 1 MiB). */
  maxResponseBytes?: number;
}

const FIELDS = ["spec", "baseUrl", "server", "serverVariables", "auth", "headers", "timeoutMs", "maxResponseBytes", "disabled"];

/** Checks the `openapi` block; returns the enabled entries (relative paths resolved) and every problem found. */
export function parseOpenApiSources(value: unknown, file: string | undefined): { sources: Record<string, OpenApiSourceConfig>; problems: Problem[] } {
  const problems: Problem[] = [];
  const sources: Record<string, OpenApiSourceConfig> = {};
  if (value === undefined) return { sources, problems };
  const at = (name: string, message: string): Problem => ({ file, name, rule: message, message: `openapi ${JSON.stringify(name)}: ${message}` });
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { sources, problems: [{ file, message: `"openapi" must be an object {"<name>": {"spec": "api.yaml", "baseUrl"?, "auth"?}}` }] };
  }
  for (const [name, raw] of Object.entries(value)) {
    if (!/^[a-zA-Z0-9_.-]{1,64}$/.test(name)) problems.push(at(name, `the name must be 1–64 letters, digits, "_", "-" or "."`));
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      problems.push(at(name, `must be an object with "spec" (the OpenAPI file)`));
      continue;
    }
    const entry = raw as Record<string, unknown>;
    const before = problems.length;
    for (const key of Object.keys(entry)) if (!FIELDS.includes(key)) problems.push(at(name, `field "${key}" is not a known field (${FIELDS.join(", ")})`));
    if (typeof entry.spec !== "string" || !entry.spec.trim()) problems.push(at(name, `field "spec" is required: the OpenAPI file (JSON or YAML)`));
    if (entry.baseUrl !== undefined && (typeof entry.baseUrl !== "string" || !URL.canParse(entry.baseUrl))) problems.push(at(name, `field "baseUrl" must be an absolute URL such as http://127.0.0.1:8080/api/v1`));
    if (entry.server !== undefined && !(typeof entry.server === "string" && entry.server.trim()) && !(typeof entry.server === "number" && Number.isInteger(entry.server) && entry.server >= 0)) {
      problems.push(at(name, `field "server" must be a server's index (0 is the first), URL or description`));
    }
    if (entry.serverVariables !== undefined && (typeof entry.serverVariables !== "object" || entry.serverVariables === null || Object.values(entry.serverVariables).some((v) => typeof v !== "string"))) {
      problems.push(at(name, `field "serverVariables" must map variable names to strings`));
    }
    if (entry.auth !== undefined && (typeof entry.auth !== "object" || entry.auth === null || Array.isArray(entry.auth))) problems.push(at(name, `field "auth" must be one of {"bearer": T}, {"basic": {"username", "password"}}, {"apiKey": V}`));
    if (entry.headers !== undefined && (typeof entry.headers !== "object" || entry.headers === null || Object.values(entry.headers).some((v) => typeof v !== "string"))) problems.push(at(name, `field "headers" must map header names to strings`));
    for (const key of ["timeoutMs", "maxResponseBytes"]) {
      const n = entry[key];
      if (n !== undefined && (typeof n !== "number" || !Number.isInteger(n) || n < 1)) problems.push(at(name, `field "${key}" must be a whole number above 0`));
    }
    if (problems.length > before || entry.disabled === true) continue;
    const spec = entry.spec as string;
    sources[name] = {
      ...(entry as Omit<OpenApiSourceConfig, "spec">),
      spec: file && !isAbsolute(spec) ? resolve(dirname(file), spec) : spec,
    };
    delete (sources[name] as { disabled?: unknown }).disabled;
  }
  return { sources, problems };
}
