/**
 * `toolsearch mcp [--config FILE] [--catalog FILE] [--docs PATH] [--http PORT]`: the MCP server and gateway, and
 * `toolsearch mcp import --from CLIENT`, which moves a client's servers behind it (mcp-import.ts).
 */
import type { Command } from "commander";
import { secretFromEnv } from "../../ops/environment.js";
import { DEFAULT_CACHE_PATH } from "../../embeddings/cache.js";
import { ToolIndex } from "../../indexes/tool-index.js";
import { checkClientKeys } from "../../auth/key-check.js";
import { loadGatewayConfig } from "../../mcp/config.js";
import { Gateway } from "../../mcp/gateway.js";
import { GATEWAY_USAGE, StoreUsage } from "../../mcp/usage.js";
import { tightenHeapGrowth } from "../../ops/heap-trim.js";
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, serveHttp, serveStdio } from "../../mcp/transports.js";
import { defaultStorePath, openStore } from "../../store/open.js";
import { registerMcpAuth } from "./mcp-auth.js";
import { registerMcpImport } from "./mcp-import.js";
import { registerMcpReview } from "./mcp-review.js";
import { readPinFile } from "../../trust/pin-file.js";
import { addEmbedderOptions, type EmbedderFlags, embedderFromFlags } from "../embedder-flags.js";
import { parseChoice, parseInteger, UsageError } from "../output.js";
import { SCREEN_MODES, type ScreenMode } from "../../trust/screen.js";
import { AuditLog, startAuditPruning } from "../../trust/audit.js";

interface McpFlags extends EmbedderFlags {
  config?: string;
  catalog?: string;
  docs?: string;
  http?: number;
  host: string;
  token?: string;
  exposeFound?: boolean;
  callTimeout: number;
  restartDelay: number;
  store?: string;
  eager?: boolean;
  idleStop?: number;
  sessionIdle: number;
  maxSessions: number;
  trustUpdates?: boolean;
  pinFrom?: string;
  reviewPoll: number;
  usage: boolean;
  learning: boolean;
  screenResults: ScreenMode;
}

/** How long the gateway keeps its audit entries in its store (the service's `--keep-audit` default). */
const AUDIT_KEEP_DAYS = 90;

/** Default `--idle-stop` in seconds when servers start lazily (with `--eager`, servers are never idle-stopped unless asked). */
const DEFAULT_IDLE_STOP_SECONDS = 600;

export function registerMcp(program: Command): void {
  const command = program
    .command("mcp")
    .description("run an MCP server: a gateway in front of the MCP servers of --config, plus a static --catalog and --docs")
    .option("--config <file>", 'upstream MCP servers, as {"mcpServers": {name: {command, args, env} | {url, headers}}}')
    .option("-c, --catalog <file>", "static tool catalog to search (searchable and describable, not callable)")
    .option("--docs <path>", "knowledge base (JSONL or Markdown folder): adds search_docs and read_doc")
    .option("--http <port>", "serve Streamable HTTP on this port (path /mcp) instead of stdio; 0 picks a free port", parseInteger("--http", 0, 65535))
    .option("--host <host>", "interface for --http (loopback unless you choose otherwise)", "127.0.0.1")
    .option("--token <token>", "with --http, require Authorization: Bearer <token> (default: $TOOLSEARCH_MCP_TOKEN or the file $TOOLSEARCH_MCP_TOKEN_FILE names)")
    .option("--expose-found", "add the upstream tools that searches find to the gateway's own tool list")
    .option("--call-timeout <ms>", "most time an upstream tool call may take", parseInteger("--call-timeout", 1, 3_600_000), 60_000)
    .option("--restart-delay <ms>", "first restart delay of a failed upstream (doubles up to 60 s)", parseInteger("--restart-delay", 1, 600_000), 1_000)
    .option("--store <path>", "where manifests (each upstream's tools) and usage events are kept (default with --config: $TOOLSEARCH_DEFAULT_STORE, else $TOOLSEARCH_HOME/store.sqlite)")
    .option("--no-usage", "do not record the sessions' searches, loads and calls in the store (SPEC §17)")
    .option("--no-learning", "record usage, but leave the learned signal out of the gateway's searches")
    .option("--eager", "start every upstream at launch instead of on its first call")
    .option("--idle-stop <seconds>", `stop an upstream after this long without a call; 0 = never (default ${DEFAULT_IDLE_STOP_SECONDS}, or 0 with --eager)`, parseInteger("--idle-stop", 0, 31_536_000))
    .option("--session-idle <seconds>", "with --http, close a session after this long without a request; 0 = never", parseInteger("--session-idle", 0, 31_536_000), DEFAULT_SESSION_IDLE_MS / 1000)
    .option("--max-sessions <n>", "with --http, most sessions open at once (one more gets HTTP 503)", parseInteger("--max-sessions", 1, 10_000_000), DEFAULT_MAX_SESSIONS)
    .option("--trust-updates", "serve changed upstream tool definitions at once instead of holding them for review (flagged ones are still held)")
    .option("--screen-results <mode>", "upstream results that hold text aimed at the model: off, warn (flag in _meta) or block (withhold); a server's \"screenResults\" overrides it", parseChoice("--screen-results", SCREEN_MODES), "warn")
    .option("--pin-from <file>", 'pin these reviewed definitions, as {"<server>": [tool, …]}; what differs is held for review')
    .option("--review-poll <seconds>", "how often to look in the store for decisions of `toolsearch mcp review` and serve them; 0 = only at start", parseInteger("--review-poll", 0, 86_400), 2)
    // stdout carries the protocol, so --json only changes how a start-up error is reported: one JSON line on stderr.
    .option("--json", "report start-up errors as one line of JSON on stderr");
  registerMcpImport(command);
  registerMcpAuth(command);
  registerMcpReview(command);
  addEmbedderOptions(command)
    .action(async (flags: McpFlags) => {
      if (!flags.config && !flags.catalog && !flags.docs) throw new UsageError("mcp needs at least one of --config, --catalog or --docs");
      if (flags.token !== undefined && flags.http === undefined) throw new UsageError("--token only applies with --http");
      const token = flags.token ?? secretFromEnv("TOOLSEARCH_MCP_TOKEN");
      // Load (and refuse) every file before starting any upstream process.
      const config = flags.config ? loadGatewayConfig(flags.config) : undefined;
      if (config) await checkClientKeys(config, flags.config!);
      const pinFrom = flags.pinFrom ? readPinFile(flags.pinFrom) : undefined;
      const embedder = embedderChosen(flags) ? await embedderFromFlags(flags) : undefined;
      // Loaded only when asked for, so that a gateway of MCP servers starts without them (launch time).
      const opened = flags.catalog ? await (await import("../index-cache.js")).openCatalog(flags.catalog, { embedder }, flags.cache) : undefined;
      opened?.save();
      const catalog = opened?.index ?? new ToolIndex([], { embedder });
      const docs = flags.docs ? await (await import("../../indexes/document-index.js")).DocumentIndex.fromFile(flags.docs) : undefined;
      const store = config || flags.store ? await openStore(flags.store ?? defaultStorePath()) : undefined;
      const manifests = config ? store : undefined;
      const usage = store && flags.usage ? await StoreUsage.open(store, catalog, { learning: flags.learning }) : undefined;
      const idleStopSeconds = flags.idleStop ?? (flags.eager ? 0 : DEFAULT_IDLE_STOP_SECONDS);
      // Upstream calls are audited in the store (SPEC §16), with what result screening found: `toolsearch audit` reads them.
      const audit = config && store ? new AuditLog(store) : undefined;
      const stopAuditPruning = audit && store ? startAuditPruning(store, AUDIT_KEEP_DAYS, (line) => process.stderr.write(`${line}\n`)) : () => {};
      const gateway = await Gateway.start({
        config, catalog, docs, manifests, usage,
        configFile: flags.config,
        pins: manifests && { store: manifests, trustUpdates: flags.trustUpdates, pinFrom, pollMs: flags.reviewPoll * 1000 },
        eager: flags.eager,
        exposeFound: flags.exposeFound,
        waitForUpstreams: false,
        screenResults: flags.screenResults,
        onCall: audit && ((call) => audit.record({ who: "local", action: "call_tool", collection: GATEWAY_USAGE, target: call.tool, outcome: call.outcome, durationMs: call.durationMs, argumentBytes: call.argumentBytes, ...(call.screen ? { screen: call.screen } : {}) })),
        upstream: { callTimeoutMs: flags.callTimeout, restartDelayMs: flags.restartDelay, idleStopMs: idleStopSeconds * 1000 },
      });
      const stopped = onceStopped();
      if (flags.http !== undefined) {
        // A long-running endpoint: keep V8's heap near what it holds instead of letting RSS swing with each call burst
        // (src/ops/heap-trim.ts; the 10-minute soak in docs/benchmarks.md).
        tightenHeapGrowth();
        const endpoint = await serveHttp(gateway, { port: flags.http, host: flags.host, token, sessionIdleMs: flags.sessionIdle * 1000, maxSessions: flags.maxSessions });
        process.stderr.write(`toolsearch mcp: listening on ${endpoint.url}${token ? " (bearer token required)" : ""}\n`);
        await stopped;
        await endpoint.close();
      } else {
        await Promise.race([serveStdio(gateway), stopped]);
      }
      await gateway.close();
      stopAuditPruning();
      await audit?.close();
      await usage?.flush();
      await store?.close();
      await embedder?.close();
      process.stderr.write("toolsearch mcp: stopped\n");
    });
}

/**
 * Whether the embedder flags differ from the defaults. Otherwise the index keeps its own default embedder, which is
 * only created by the first semantic or hybrid search, so a gateway that never needs one opens no cache file.
 */
function embedderChosen(flags: EmbedderFlags): boolean {
  return flags.embedder !== "use-lite" || flags.cache !== DEFAULT_CACHE_PATH || flags.embeddingUrl !== undefined || flags.embeddingDimensions !== undefined;
}

/** Resolves on SIGINT or SIGTERM. */
function onceStopped(): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
}
