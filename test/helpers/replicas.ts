/**
 * Real `toolsearch serve` processes for replica tests and the cluster benchmark: spawned from source on a free port,
 * their URL read from stdout, killed when the test process exits whatever happened.
 *
 * @example
 * const replica = await startReplica(["--store", url, "--no-auth"]);
 * await fetch(`${replica.url}/readyz`);
 * await replica.kill("SIGKILL");
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

export interface Replica {
  readonly url: string;
  readonly pid: number;
  /** Everything it printed on stderr so far (for failure messages). */
  stderr(): string;
  /** Resident memory in MB, from /proc. */
  rssMb(): number;
  /** Sends a signal and waits for the process to end. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `toolsearch serve ARGS --port 0` and resolves with its URL once it listens. */
export async function startReplica(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<Replica> {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, "serve", "--host", "127.0.0.1", "--port", "0", ...args], {
    env: { ...process.env, FORCE_COLOR: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exited.then(() => live.delete(child));
  let out = "";
  let err = "";
  child.stderr!.on("data", (chunk) => (err += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not print its URL in ${timeoutMs} ms:\n${err}`)), timeoutMs);
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      const match = /https?:\/\/[^\s"]+/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[0].replace(/\/$/, ""));
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}) before listening:\n${err}`));
    });
  });
  return {
    url,
    pid: child.pid!,
    stderr: () => err,
    rssMb: () => rssMb(child.pid!),
    async kill(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** VmRSS of a process in MB (0 when it is gone). */
export function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Polls `check` every `everyMs` until it returns true; the time it took in ms. */
export async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000, everyMs = 5): Promise<number> {
  const start = performance.now();
  for (;;) {
    try {
      if (await check()) return performance.now() - start;
    } catch {
      // Not yet (a refused connection counts as "not yet").
    }
    if (performance.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A JSON request to a replica: status, parsed body and headers. */
export async function call(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, body: parsed, headers: response.headers };
}
