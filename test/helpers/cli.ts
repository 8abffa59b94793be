/** Runs the real `toolsearch` command (from source, through tsx) and captures what it prints. */
import { fork, spawn, spawnSync } from "node:child_process";
import { after } from "node:test";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[]): CliResult {
  const result = spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], { encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The real CLI in a child process, asynchronously: for tests whose service or identity provider answers from the test's
 * own process (a synchronous spawn would block them). `env` is added to this process's environment.
 */
export function runCliAsync(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], { env: { ...process.env, ...env, FORCE_COLOR: "0" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += String(chunk)));
    child.stderr.on("data", (chunk) => (stderr += String(chunk)));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs command lines in-process in one worker process (test/helpers/cli-worker.ts), which is faster than a process a
 * line. Never capture stdout inside a test file instead: node's test runner reports through it, and a capture swallows
 * the reports of other tests whenever they flush. Call it at the top of a test file; the worker ends after the file.
 */
export function inProcessCli(): (argv: string[]) => Promise<{ code: number; stdout: string; stderr: string }> {
  const worker = fork(fileURLToPath(new URL("./cli-worker.ts", import.meta.url)), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  after(() => worker.kill());
  let requests = 0;
  return (argv) => {
    const id = ++requests;
    return new Promise((resolve, reject) => {
      const onMessage = (message: { id: number; code: number; stdout: string; stderr: string }) => {
        if (message.id !== id) return;
        worker.off("message", onMessage).off("exit", onExit);
        resolve(message);
      };
      const onExit = (code: number | null) => reject(new Error(`the CLI worker exited (${code}) during ${argv.join(" ")}`));
      worker.on("message", onMessage).on("exit", onExit);
      worker.send({ id, argv });
    });
  };
}
