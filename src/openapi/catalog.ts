/**
 * `catalogFromOpenApi`: an OpenAPI document → a tool catalog (SPEC §13), one tool per operation, with the plan to
 * call each and a report of every operation left out and why.
 */
import type { AnthropicTool } from "../catalog/tool.js";
import { checkItem } from "../catalog/validate.js";
import { ToolsearchError } from "../errors.js";
import { loadOpenApi, type OpenApiDocument } from "./load.js";
import { fitName, NameRegistry, operationBaseName } from "./names.js";
import { buildOperation, chooseServer, type OperationPlan, type ServerChoice, serverChoiceProblem, SkipOperation } from "./operations.js";
import { derefObject } from "./refs.js";
import { DEFAULT_DESCRIPTION_RECIPE, type DescriptionRecipe, operationDescription, plainText } from "./text.js";

/** Options of `catalogFromOpenApi`. */
export interface OpenApiImportOptions {
  /** Put `PREFIX__` before every name (e.g. `clinic` → `clinic__getPatient`). */
  prefix?: string;
  /** The server to call, overriding the document's `servers` (recorded in each tool's `openapi.server`). */
  baseUrl?: string;
  /**
   * Which of the document's `servers` to call when there are several: an index (0 is the first) or a server's URL or
   * description, e.g. "staging". Path- and operation-level `servers` lists give the entry with the same index or
   * description, else their first. Default: the first.
   */
  server?: number | string;
  /** Values for server variables (`https://{region}.api.example.com`), replacing their defaults; checked against `enum`. */
  serverVariables?: Record<string, string>;
  /** Shared across several documents imported into one catalog, so names stay unique among all of them. */
  names?: NameRegistry;
  /** Label for messages when `spec` is an object (default "spec"). */
  label?: string;
  /** Which texts make the descriptions (the defaults were chosen by measurement; see docs/openapi.md). */
  recipe?: DescriptionRecipe;
}

/** An imported tool: Anthropic shape, a category, and where it calls (an extra field the catalog loader keeps apart). */
export interface OpenApiTool extends AnthropicTool {
  category?: string;
  openapi: { method: string; path: string; operationId?: string; server?: string };
}

/** An operation that did not become a tool. */
export interface SkippedOperation {
  method: string;
  path: string;
  operationId?: string;
  reason: string;
}

/** The catalog made from one document. */
export interface OpenApiCatalog {
  tools: OpenApiTool[];
  /** Call plans by tool name. */
  plans: Map<string, OperationPlan>;
  skipped: SkippedOperation[];
  /** Things imported with a loss (a parameter left out, an optional body of an unsupported type). */
  warnings: string[];
  /** The document's security schemes, references resolved. */
  securitySchemes: Record<string, Record<string, unknown>>;
  /** The server URL requests go to (`baseUrl`, else the chosen one of the document's servers), when there is one. */
  serverUrl?: string;
  title: string;
  source: string;
  /** OpenAPI version read (a Swagger 2.0 document says `3.0` after conversion, with `convertedFrom`). */
  version: "3.0" | "3.1";
  convertedFrom?: "2.0";
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/**
 * Imports an OpenAPI 3.0/3.1 (or Swagger 2.0) document as a tool catalog.
 *
 * @example
 * ```ts
 * const { tools, skipped } = await catalogFromOpenApi("clinic.yaml", { prefix: "clinic" });
 * const index = await ToolIndex.fromTools(tools);
 * ```
 */
export async function catalogFromOpenApi(spec: string | object, options: OpenApiImportOptions = {}): Promise<OpenApiCatalog> {
  if (options.prefix !== undefined && !/^[a-zA-Z0-9_-]{1,40}$/.test(options.prefix)) {
    throw new ToolsearchError("invalid_option", `prefix must be 1–40 letters, digits, "_" or "-" (got ${JSON.stringify(options.prefix)})`);
  }
  if (options.baseUrl !== undefined && !URL.canParse(options.baseUrl)) {
    throw new ToolsearchError("invalid_option", `base URL must be an absolute URL such as http://127.0.0.1:8080/api (got ${JSON.stringify(options.baseUrl)})`);
  }
  const loaded = await loadOpenApi(spec, options.label);
  return importDocument(loaded, options);
}

function importDocument(loaded: OpenApiDocument, options: OpenApiImportOptions): OpenApiCatalog {
  const { doc, source } = loaded;
  const recipe = { ...DEFAULT_DESCRIPTION_RECIPE, ...options.recipe };
  const info = (doc.info ?? {}) as { title?: unknown; description?: unknown };
  const title = plainText(info.title) || source;
  const apiDescription = typeof info.description === "string" ? info.description : undefined;
  const paths = doc.paths;
  if (typeof paths !== "object" || paths === null || Array.isArray(paths)) {
    throw new ToolsearchError("openapi_invalid", `${source}: the document has no "paths" object, so there are no operations to import`);
  }
  const names = options.names ?? new NameRegistry();
  const choice: ServerChoice = { server: options.server, variables: options.serverVariables };
  if (options.server !== undefined || options.serverVariables !== undefined) {
    const problem = serverChoiceProblem(doc.servers, choice);
    if (problem) throw new ToolsearchError("invalid_option", `${source}: ${problem}`);
  }
  const serverUrl = options.baseUrl ?? chooseServer(doc.servers, choice);
  const result: OpenApiCatalog = {
    tools: [], plans: new Map(), skipped: [], warnings: [], securitySchemes: securitySchemes(doc, source),
    serverUrl, title, source, version: loaded.version, convertedFrom: loaded.convertedFrom,
  };
  result.warnings.push(...loaded.warnings);
  for (const [path, pathItem] of pathItems(doc, paths as Record<string, unknown>, source, result.warnings)) {
    for (const method of METHODS) {
      const operation = pathItem[method] as Record<string, unknown> | undefined;
      if (typeof operation !== "object" || operation === null) continue;
      const operationId = typeof operation.operationId === "string" ? operation.operationId : undefined;
      const where = `${method.toUpperCase()} ${path}`;
      let built;
      try {
        built = buildOperation(doc, source, method, path, pathItem, operation, choice);
      } catch (error) {
        if (!(error instanceof SkipOperation) && !(error instanceof ToolsearchError)) throw error;
        result.skipped.push({ method: method.toUpperCase(), path, operationId, reason: error.message });
        continue;
      }
      // A relative path- or operation-level server ("/v2") is read against the document's server, as it would be
      // against the document's own address if the document were served from there.
      if (built.plan.server && !URL.canParse(built.plan.server) && serverUrl && URL.canParse(serverUrl)) built.plan.server = new URL(built.plan.server, serverUrl).toString();
      const name = fitName(operationBaseName(method, path, operationId), options.prefix);
      const tool = toolOf(name, built.inputSchema, built.plan, operation, { title, description: apiDescription }, recipe, options.baseUrl ?? built.plan.server ?? serverUrl);
      // What is left after the repairs must be a valid tool; one that is not costs its operation only.
      const problem = checkItem(tool, result.tools.length).problems[0];
      if (problem) {
        result.skipped.push({ method: method.toUpperCase(), path, operationId, reason: `its input schema is not valid: ${problem.message}` });
        continue;
      }
      tool.name = names.claim(name);
      result.warnings.push(...built.warnings.map((w) => `${where} (${tool.name}): ${w}`));
      result.plans.set(tool.name, built.plan);
      result.tools.push(tool);
    }
  }
  return result;
}

/**
 * The path items, in document order. A key that is not a path is reported and ignored; a path found *inside* another
 * path item (a YAML indentation slip, common in hand-written documents) is taken as a path of its own, with a note.
 */
function pathItems(doc: Record<string, unknown>, paths: Record<string, unknown>, source: string, warnings: string[]): [string, Record<string, unknown>][] {
  const out: [string, Record<string, unknown>][] = [];
  for (const [key, raw] of Object.entries(paths)) {
    const item = derefObject<Record<string, unknown>>(doc, raw, source);
    if (typeof item !== "object" || item === null) continue;
    const hasOperations = METHODS.some((m) => typeof item[m] === "object");
    if (!key.startsWith("/") && !hasOperations) {
      warnings.push(`"paths" holds ${JSON.stringify(key)}, which is neither a path nor has operations: ignored`);
      continue;
    }
    const path = key.startsWith("/") ? key : `/${key}`;
    if (path !== key) warnings.push(`path ${JSON.stringify(key)} does not start with "/": read as ${path}`);
    out.push([path, item]);
    for (const [key, nested] of Object.entries(item)) {
      if (!key.startsWith("/") || typeof nested !== "object" || nested === null || Object.hasOwn(paths, key)) continue;
      warnings.push(`path ${key} was found inside path ${path} (wrong indentation?): imported as a path of its own`);
      out.push([key, nested as Record<string, unknown>]);
    }
  }
  return out;
}

function toolOf(
  name: string, inputSchema: Record<string, unknown>, plan: OperationPlan, operation: Record<string, unknown>,
  api: { title: string; description?: string }, recipe: Required<DescriptionRecipe>, server: string | undefined,
): OpenApiTool {
  const description = operationDescription({
    method: plan.method, path: plan.path, summary: operation.summary as string | undefined, description: operation.description as string | undefined,
    apiTitle: api.title, apiDescription: api.description, response: successDescription(operation.responses), deprecated: operation.deprecated === true,
  }, recipe);
  const tags = Array.isArray(operation.tags) ? operation.tags.filter((t): t is string => typeof t === "string" && t.trim() !== "") : [];
  const tag = tags[0]?.trim();
  const category = tag ? (recipe.categoryWithTitle ? `${api.title}: ${tag}` : tag) : recipe.categoryFallback === "title" ? api.title : undefined;
  return {
    name, description, input_schema: inputSchema, ...(category ? { category } : {}),
    openapi: { method: plan.method, path: plan.path, ...(plan.operationId ? { operationId: plan.operationId } : {}), ...(server ? { server } : {}) },
  };
}

/** The description of the first 2xx response (what the operation gives back). */
function successDescription(responses: unknown): string | undefined {
  if (typeof responses !== "object" || responses === null) return undefined;
  const code = Object.keys(responses).sort().find((c) => /^2/.test(c));
  const response = code ? (responses as Record<string, { description?: unknown }>)[code] : undefined;
  return typeof response?.description === "string" ? response.description : undefined;
}

function securitySchemes(doc: Record<string, unknown>, source: string): Record<string, Record<string, unknown>> {
  const schemes = (doc.components as { securitySchemes?: Record<string, unknown> } | undefined)?.securitySchemes ?? {};
  return Object.fromEntries(Object.entries(schemes).map(([name, scheme]) => [name, derefObject<Record<string, unknown>>(doc, scheme, source)]));
}
