/** Shared by the service tests: an app over a fresh SQLite store, keys per scope, and a real `serve` child process. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { Embedder } from "../../src/embeddings/embedder.js";
import type { EmbeddingProvider } from "../../src/embeddings/provider.js";
import { buildService, type ServiceOptions } from "../../src/server/app.js";
import { createApiKey } from "../../src/server/auth.js";
import { Collections, type CollectionsOptions } from "../../src/server/collections.js";
import { openStore } from "../../src/store/open.js";
import type { Scope, Store } from "../../src/store/types.js";
import { LetterProvider } from "../helpers/letter-provider.js";
import { makeTempDir } from "../helpers/temp-dir.js";

export { LetterProvider };

export const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
export const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));
export const WEATHER_TOOLS = join(FIXTURES, "catalogs", "weather-finance.json");
export const HELP_CENTER = join(FIXTURES, "documents", "help-center.jsonl");

/** Tools of the weather-finance fixture, as a client would send them. */
export function weatherTools(): Array<Record<string, unknown>> {
  const value = JSON.parse(readFileSync(WEATHER_TOOLS, "utf8")) as unknown;
  return (Array.isArray(value) ? value : (value as { tools: unknown[] }).tools) as Array<Record<string, unknown>>;
}

/** Documents of the help-center fixture. */
export function helpCenter(): Array<Record<string, unknown>> {
  return readFileSync(HELP_CENTER, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function tempDir(): string {
  return makeTempDir("toolsearch-serve-");
}

export interface TestService {
  app: FastifyInstance;
  store: Store;
  collections: Collections;
  dir: string;
  /** A key of each scope (all collections). */
  keys: Record<Scope, string>;
  auth(key: string): { authorization: string };
  close(): Promise<void>;
}

/** An app over a fresh store, with one key per scope; `close` removes everything. `collectionOptions` go to `Collections`. */
export async function makeService(
  options: Partial<ServiceOptions> & { collectionOptions?: CollectionsOptions } = {},
  dir = tempDir(),
  provider: EmbeddingProvider = new LetterProvider(),
): Promise<TestService> {
  const { collectionOptions, ...serviceOptions } = options;
  const store = await openStore(join(dir, "store.sqlite"));
  const collections = new Collections(store, { embedder: new Embedder(provider, { cache: store }), log: () => {}, ...collectionOptions });
  await collections.start();
  const app = await buildService({ collections, logger: false, ...serviceOptions });
  const keys = {} as Record<Scope, string>;
  for (const scope of ["read", "call", "write", "admin"] as Scope[]) keys[scope] = (await createApiKey(store, { scope })).key;
  return {
    app,
    store,
    collections,
    dir,
    keys,
    auth: (key) => ({ authorization: `Bearer ${key}` }),
    close: async () => {
      await app.close();
      await collections.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A running `toolsearch serve` child process. */
export interface ServeProcess {
  url: string;
  child: ChildProcess;
  /** Everything it wrote, stderr then stdout (with JSON logs, the default off a terminal, its notes are on stdout). */
  stderr: () => string;
  /** Sends a signal (unless it has exited) and waits for the exit; resolves with the exit code (or the signal's name). */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
  /** Resolves with the exit code (or the signal's name) once it exits, sending nothing. */
  exited: Promise<number | string>;
}

/** Starts `toolsearch serve --port 0 …` and resolves once it prints the URL it listens on. */
export async function startServe(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  // No drain window unless a test asks for one (a later --drain-seconds wins): SIGTERM then stops at once.
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, "serve", "--port", "0", "--log", "warn", "--drain-seconds", "0", ...args], {
    env: { ...process.env, FORCE_COLOR: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/[^\s"]+)/.exec(stdout);
      if (match) resolve(match[1]);
    });
    void exited.then((code) => reject(new Error(`serve exited (${code}) before listening:\n${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr + stdout,
    exited,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** The lines of a process's output, each JSON log line replaced by its message. */
export function messagesOf(output: string): string {
  return output.split("\n").map((line) => {
    try {
      return String((JSON.parse(line) as { msg?: unknown }).msg ?? line);
    } catch {
      return line;
    }
  }).join("\n");
}

/** Waits until `GET /readyz` answers 200. */
export async function waitReady(url: string, attempts = 300): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    const response = await fetch(`${url}/readyz`).catch(() => undefined);
    if (response?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} never became ready`);
}

/**
 * Runs `toolsearch serve --port 0 ARGS` to its end with a fresh $TOOLSEARCH_HOME (for usage errors): exit code,
 * stderr, and `messages`: every line of stderr and stdout, a JSON log line as its `msg` (an error found once the
 * logs are set up is a JSON line on stdout).
 */
export function serveCli(args: string[], env: Record<string, string> = {}): { code: number | null; stderr: string; messages: string } {
  const home = tempDir();
  try {
    const result = spawnSync(process.execPath, ["--import", "tsx", MAIN, "serve", "--port", "0", ...args], { encoding: "utf8", env: { ...process.env, TOOLSEARCH_HOME: home, FORCE_COLOR: "0", ...env } });
    return { code: result.status, stderr: result.stderr, messages: messagesOf(result.stderr + result.stdout) };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
