/** Runs the real `toolsearch` command (from source, through tsx) and captures what it prints. */
import { spawnSync } from "node:child_process";
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
