/**
 * Real `toolsearch serve` processes for replica tests and the cluster benchmark (on test/server/helpers.ts's
 * `startServe`), killed when the test process exits whatever happened, with their memory and a JSON client.
 *
 * @example
 * const replica = await startReplica(["--store", url, "--no-auth"]);
 * await fetch(`${replica.url}/readyz`);
 * await replica.kill("SIGKILL");
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { startServe } from "../server/helpers.js";

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
  /** Sends a signal (default SIGTERM) and waits for the process to end. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `toolsearch serve ARGS` on 127.0.0.1 and a free port; killed when this process exits, whatever happens. */
export async function startReplica(args: string[], env: Record<string, string> = {}): Promise<Replica> {
  const serve = await startServe(["--host", "127.0.0.1", ...args], env);
  live.add(serve.child);
  serve.child.once("exit", () => live.delete(serve.child));
  const pid = serve.child.pid!;
  return {
    url: serve.url.replace(/\/$/, ""),
    pid,
    stderr: serve.stderr,
    rssMb: () => rssMb(pid),
    kill: async (signal) => void (await serve.stop(signal)),
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
