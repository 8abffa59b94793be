/**
 * `toolsearch serve [--store PATH|postgres://…] [--host H] [--port N] [--catalog FILE]… [--docs PATH]…
 * [--mcp-config FILE]… [--no-auth] [--session-idle S] [--max-sessions N] [--idle-stop S] [--expose-found] [--trust-updates]
 * [--pg-pool-size N] [--oauth-issuer URL [--oauth-audience A] [--oauth-collections-claim C] [--oauth-tools-claim C]]
 * [--preload NAME…] [--preload-recent N] [--memory-budget MB] [--log json|text] [--log-level L] [--drain-seconds S]
 * [--shutdown-timeout S] [--metrics-collections N] [--trace-queries]`: the service of SPEC §9 (its MCP sessions and
 * upstreams behave as the gateway's, SPEC §11), operated as SPEC §18 says: logs, request ids, drain, metrics and
 * traces come from src/ops/. Prints `listening on URL (…)` on stdout once it accepts connections; SIGTERM or SIGINT
 * drain it (src/ops/drain.ts) and exit 0.
 */
import type { Command } from "commander";
import type { OAuthResourceOptions } from "../../auth/oauth-resource.js";
import { ToolsearchError } from "../../errors.js";
import { DEFAULT_DRAIN_SECONDS, DEFAULT_SHUTDOWN_TIMEOUT_SECONDS, Drain } from "../../ops/drain.js";
import { logSettings, ProcessLog } from "../../ops/logging.js";
import { DEFAULT_METRICS_COLLECTIONS } from "../../ops/metrics.js";
import { otlpProtocol, startTracing, tracedStore, tracingRequested } from "../../ops/tracing.js";
import { Embedder } from "../../embeddings/embedder.js";
import { EMBEDDER_NAMES, providerFromSpec } from "../../embeddings/from-spec.js";
import { isLoopbackName } from "../../server/auth.js";
import { MB } from "../../server/collection-cache.js";
import { tightenHeapGrowth } from "../../ops/heap-trim.js";
import type { Collections } from "../../server/collections.js";
import { DEFAULT_MAX_BODY, DEFAULT_RATE_LIMIT, DEFAULT_REQUEST_TIMEOUT_MS } from "../../server/limits.js";
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS } from "../../mcp/http-sessions.js";
import { defaultStorePath, isPostgresUrl, openStore } from "../../store/open.js";
import { MAX_POOL_SIZE } from "../../store/records.js";
import { startPruning } from "../../store/retention.js";
import { AuditLog, startAuditPruning } from "../../trust/audit.js";
import { secretFromEnv } from "../../ops/environment.js";
import { parseChoice, parseInteger, UsageError } from "../output.js";
import { SCREEN_MODES, type ScreenMode } from "../../trust/screen.js";
import { createProgress } from "../progress.js";

interface ServeFlags {
  store?: string;
  host: string;
  port: number;
  catalog: string[];
  docs: string[];
  mcpConfig: string[];
  auth: boolean;
  publicMetrics?: boolean;
  maxBody: number;
  rateLimit: number;
  requestTimeout: number;
  log?: string;
  logLevel?: string;
  drainSeconds: number;
  shutdownTimeout: number;
  metricsCollections: number;
  traceQueries?: boolean;
  embedder: string;
  embeddingUrl?: string;
  embeddingDimensions?: number;
  keepChanges: number;
  sessionIdle: number;
  maxSessions: number;
  idleStop: number;
  exposeFound?: boolean;
  trustUpdates?: boolean;
  screenResults: ScreenMode;
  pgPoolSize?: number;
  auditArguments?: boolean;
  keepAudit: number;
  oauthIssuer?: string;
  oauthAudience?: string;
  oauthCollectionsClaim?: string;
  oauthToolsClaim?: string;
  preload: string[];
  preloadRecent: number;
  memoryBudget?: number;
}

/** Default `--idle-stop` in seconds, as for `toolsearch mcp` (SPEC §11). */
const DEFAULT_IDLE_STOP_SECONDS = 600;

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("run the search service: collections of tools, documents and MCP servers over HTTP and MCP, kept in a store")
    .option("--store <path|url>", "SQLite file or postgres:// URL (default: $TOOLSEARCH_DEFAULT_STORE, else store.sqlite in $TOOLSEARCH_HOME, else ~/.toolsearch)")
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--port <n>", "TCP port; 0 picks a free one", parseInteger("--port", 0, 65535), 8080)
    .option("-c, --catalog <file>", "serve a tool catalog as a collection named after the file (repeatable)", collect, [])
    .option("--docs <path>", "serve documents (JSONL or Markdown folder) as a collection (repeatable)", collect, [])
    .option("--mcp-config <file>", "serve the tools of an mcpServers file as a collection (repeatable)", collect, [])
    .option("--no-auth", "accept requests without API keys (refused unless --host is a loopback address)")
    .option("--public-metrics", "serve /metrics without a key (it names every collection; default: an admin key or token)")
    .option("--max-body <bytes>", "largest request body", parseInteger("--max-body", 1024, 1024 ** 3), DEFAULT_MAX_BODY)
    .option("--rate-limit <n>", "requests per minute per key (0: no limit)", parseInteger("--rate-limit", 0, 1e9), DEFAULT_RATE_LIMIT.max)
    .option("--request-timeout <ms>", "most time to receive a request and to answer a search", parseInteger("--request-timeout", 100, 3_600_000), DEFAULT_REQUEST_TIMEOUT_MS)
    .option("--log <format>", "json (one JSON object per line on stdout, for everything the process writes; the default when stdout is not a terminal) or text")
    .option("--log-level <level>", "level of request log lines: trace, debug, info, warn, error, silent (default info)")
    .option("--drain-seconds <s>", "on SIGTERM, keep serving this long with /readyz answering 503 before finishing requests in flight", parseInteger("--drain-seconds", 0, 3600), DEFAULT_DRAIN_SECONDS)
    .option("--shutdown-timeout <s>", "on SIGTERM, exit within this long: drain, requests in flight, snapshots and store included", parseInteger("--shutdown-timeout", 1, 86_400), DEFAULT_SHUTDOWN_TIMEOUT_SECONDS)
    .option("--metrics-collections <n>", "per-collection /metrics series for at most this many collections (the largest); the rest are summed as _other", parseInteger("--metrics-collections", 0, 1_000_000), DEFAULT_METRICS_COLLECTIONS)
    .option("--trace-queries", "put search queries' text on trace spans (traces are on when OTEL_EXPORTER_OTLP_ENDPOINT is set)")
    .option("--embedder <name>", `embedding provider for semantic and hybrid: ${EMBEDDER_NAMES}; vectors are kept in the store`, "use-lite")
    .option("--embedding-url <url>", "base URL of an OpenAI-compatible endpoint, for http:<model>")
    .option("--embedding-dimensions <n>", "vector length of the http:<model> (default 1536)", parseInteger("--embedding-dimensions", 1, 65_536))
    .option("--keep-changes <hours>", "keep the change log this long: the longest disconnect a replica catches up from without reloading", parseInteger("--keep-changes", 1, 24 * 365), 24)
    .option("--session-idle <seconds>", "close an MCP session of /mcp/{c} after this long without a request; 0 = never", parseInteger("--session-idle", 0, 31_536_000), DEFAULT_SESSION_IDLE_MS / 1000)
    .option("--max-sessions <n>", "most MCP sessions open at once (one more gets HTTP 503)", parseInteger("--max-sessions", 1, 10_000_000), DEFAULT_MAX_SESSIONS)
    .option("--idle-stop <seconds>", "stop an upstream server of an mcp collection after this long without a call; 0 = never", parseInteger("--idle-stop", 0, 31_536_000), DEFAULT_IDLE_STOP_SECONDS)
    .option("--expose-found", "add the upstream tools a session's searches find to that session's MCP tool list")
    .option("--preload <names...>", "load these collections at start (/readyz waits for them); the others load on their first request", [])
    .option("--preload-recent <n>", "also load the N most recently changed collections at start", parseInteger("--preload-recent", 0, 1_000_000), 0)
    .option("--memory-budget <mb>", "bound the memory of loaded indexes (MiB; default none): past it the least recently used idle collections are dropped", parseInteger("--memory-budget", 1, 16_777_216))
    .option("--trust-updates", "mcp collections serve changed upstream tool definitions at once instead of holding them for review")
    .option("--screen-results <mode>", "upstream results of mcp collections that hold text aimed at the model: off, warn (flag in _meta) or block (withhold); a server's \"screenResults\" overrides it", parseChoice("--screen-results", SCREEN_MODES), "warn")
    .option("--pg-pool-size <n>", "connections per replica in the PostgreSQL pool (default 10)", parseInteger("--pg-pool-size", 1, MAX_POOL_SIZE))
    .option("--audit-arguments", "keep the arguments of each call_tool in the audit log (default: only their size)")
    .option("--keep-audit <days>", "keep audit log entries this many days (0: forever)", parseInteger("--keep-audit", 0, 36_500), 90)
    .option("--oauth-issuer <url>", "also accept JWT access tokens of this OAuth/OpenID issuer (scopes toolsearch:read|call|write|admin)")
    .option("--oauth-audience <aud>", "the aud a token must carry (default: the service's URL, as MCP clients request it)")
    .option("--oauth-collections-claim <claim>", "a token claim listing the collections it may reach (\"*\": all)")
    .option("--oauth-tools-claim <claim>", "a token claim listing globs of the tools it may see")
    .action(async (flags: ServeFlags) => serve(flags));
}

async function serve(flags: ServeFlags): Promise<void> {
  if (!flags.auth && !isLoopbackName(flags.host)) {
    throw new UsageError(
      `--no-auth is refused on --host ${flags.host}: without keys anyone who can reach that address could read and change every collection. ` +
        "Bind a loopback address (127.0.0.1, ::1, localhost), or keep auth on and create a key with toolsearch keys create.",
    );
  }
  const budget = flags.memoryBudget;
  const storeSpec = flags.store ?? defaultStorePath();
  if (flags.pgPoolSize !== undefined && !isPostgresUrl(storeSpec)) {
    throw new UsageError(`--pg-pool-size applies only to a PostgreSQL store (--store postgres://…); ${storeSpec} is a SQLite file, which has no pool`);
  }
  const oauth = oauthOptions(flags);
  const log = new ProcessLog(usage(() => logSettings(flags.log, flags.logLevel)), "serve");
  if (tracingRequested()) usage(() => otlpProtocol());
  // From here on, with JSON logs, every line the process writes is a JSON object on stdout (a start-up error too:
  // the capture stays until the process ends).
  log.captureStdio();
  const note = log.writer;
  // The server's modules (fastify and its plugins) load only for this command, so other commands start faster.
  const [{ buildService }, { Collections }, { seedCollections }] = await Promise.all([
    import("../../server/app.js"),
    import("../../server/collections.js"),
    import("../../server/seed.js"),
  ]);
  const tracing = await startTracing({ traceQueries: flags.traceQueries });
  const opened = await openStore(storeSpec, { poolSize: flags.pgPoolSize });
  const store = tracing ? tracedStore(opened, opened.kind === "postgres" ? "postgresql" : "sqlite") : opened;
  const provider = await providerFromSpec(flags.embedder, {
    baseUrl: flags.embeddingUrl,
    dimensions: flags.embeddingDimensions,
    apiKey: secretFromEnv("TOOLSEARCH_EMBEDDING_KEY") ?? secretFromEnv("OPENAI_API_KEY"),
  });
  const embedder = new Embedder(provider, { cache: store });
  // Collections named by --catalog, --docs and --mcp-config are preloaded too (added once seeding has named them):
  // the user asked for them on the command line, and an mcp one lists its servers' tools at start, as before.
  const preloadNames = [...flags.preload];
  const collections = new Collections(store, {
    embedder,
    exposeFound: flags.exposeFound,
    trustUpdates: flags.trustUpdates,
    screenResults: flags.screenResults,
    upstream: { idleStopMs: flags.idleStop * 1000, log: note, stderr: (server, line) => log.upstreamStderr(server, line) },
    preload: { names: preloadNames, recent: flags.preloadRecent },
    memoryBudgetBytes: budget === undefined ? undefined : budget * MB,
    log: note,
  });
  // Under a budget, V8 collects dropped collections sooner (src/ops/heap-trim.ts).
  if (budget !== undefined) tightenHeapGrowth();
  const audit = new AuditLog(store, { keepArguments: flags.auditArguments, log: note });
  const drain = new Drain({ drainMs: flags.drainSeconds * 1000, shutdownTimeoutMs: flags.shutdownTimeout * 1000, log: note, beforeExit: () => log.flush() });
  const closeAll = async () => {
    await audit.close().catch((error: unknown) => note(`audit log: ${audit.pending} entries could not be written at stop: ${(error as Error).message}`));
    // Saves the snapshots of collections changed since their last one.
    await collections.close();
    await embedder.close();
    await store.close();
    await tracing?.shutdown().catch((error: unknown) => note(`traces: the last spans could not be exported: ${(error as Error).message}`));
  };
  try {
    const seeded = await seedCollections(store, { catalogs: flags.catalog, docs: flags.docs, mcpConfigs: flags.mcpConfig });
    for (const name of seeded.kept) note(`collection ${name} is already in the store; kept it (the file was not reloaded)`);
    preloadNames.push(...seeded.added, ...seeded.kept);
    const app = await buildService({
      collections,
      noAuth: !flags.auth,
      publicMetrics: flags.publicMetrics,
      maxBodyBytes: flags.maxBody,
      rateLimit: flags.rateLimit === 0 ? false : { max: flags.rateLimit, windowMs: 60_000 },
      requestTimeoutMs: flags.requestTimeout,
      logger: log.fastifyLogger(),
      loopbackOnly: isLoopbackName(flags.host),
      mcp: { sessionIdleMs: flags.sessionIdle * 1000, maxSessions: flags.maxSessions },
      audit,
      oauth,
      metricsCollections: flags.metricsCollections,
      tracing: tracing !== undefined,
      drain,
    });
    const stopped = drain.signalled();
    const address = await app.listen({ port: flags.port, host: flags.host }).catch((error: NodeJS.ErrnoException) => {
      const why = error.code === "EADDRINUSE" ? "the port is in use" : error.code === "EACCES" ? "permission denied" : error.code === "EADDRNOTAVAIL" ? "no such address on this machine" : error.message;
      throw new ToolsearchError("invalid_option", `cannot listen on ${flags.host}:${flags.port}: ${why}`);
    });
    // Listening first: /healthz answers and /readyz says 503 while collections load.
    log.listening(address, flags.auth ? "auth on" : "no auth: loopback only");
    await loadWithProgress(collections);
    // Replicas need the log only to catch up after a disconnect; one away longer than this reloads (src/store/retention.ts).
    const stopPruning = startPruning(store, { keepMs: flags.keepChanges * 3_600_000, log: note });
    const stopAuditPruning = flags.keepAudit > 0 ? startAuditPruning(store, flags.keepAudit, note) : () => {};
    if (tracing) note(`traces: exporting over OTLP ${tracing.protocol}${flags.traceQueries ? ", with query text" : ""}`);
    note(`ready: ${collections.list().length} collection(s) from ${store.kind} store ${store.location}, ${collections.loadedCount} loaded${budget === undefined ? "" : `, memory budget ${budget} MB`}`);
    const signal = await stopped;
    note(`${signal}: stopping`);
    stopPruning();
    stopAuditPruning();
    await drain.shutdown({ close: () => app.close(), cut: () => app.server.closeAllConnections(), cleanup: closeAll });
  } catch (error) {
    await closeAll().catch(() => undefined);
    throw error;
  } finally {
    note("stopped");
    log.flush();
  }
}

/** Runs `read`, turning its error into a usage error (a bad flag value). */
function usage<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `--oauth-*` flags as the service's options; the claims and audience need the issuer. */
function oauthOptions(flags: ServeFlags): OAuthResourceOptions | undefined {
  if (flags.oauthIssuer === undefined) {
    const stray = (["oauthAudience", "oauthCollectionsClaim", "oauthToolsClaim"] as const).find((name) => flags[name] !== undefined);
    if (stray) throw new UsageError(`--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --oauth-issuer`);
    return undefined;
  }
  let issuer: URL;
  try {
    issuer = new URL(flags.oauthIssuer);
  } catch {
    throw new UsageError(`--oauth-issuer must be a URL (got ${JSON.stringify(flags.oauthIssuer)})`);
  }
  if (issuer.protocol !== "https:" && !(issuer.protocol === "http:" && isLoopbackName(issuer.hostname))) {
    throw new UsageError(`--oauth-issuer must be an https URL (plain http only on a loopback address); got ${flags.oauthIssuer}`);
  }
  return { issuer: flags.oauthIssuer, audience: flags.oauthAudience, collectionsClaim: flags.oauthCollectionsClaim, toolsClaim: flags.oauthToolsClaim };
}

async function loadWithProgress(collections: Collections): Promise<void> {
  const progress = createProgress();
  try {
    await collections.start((done, total) => {
      if (done === 1) progress.start("preloading collections", total);
      progress.update(done);
    });
  } finally {
    progress.stop();
  }
}
