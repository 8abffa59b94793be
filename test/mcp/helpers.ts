/** Shared helpers of the gateway tests: where the real MCP servers live, clients, and polling without clocks. */
import { type ChildProcess, execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Gateway } from "../../src/mcp/gateway.js";

const require = createRequire(import.meta.url);
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const FIXTURE_SERVER = join(ROOT, "test", "fixtures", "mcp", "fixture-server.mjs");
/** The conformance-style upstream: the test tools, resources and prompts the conformance scenarios ask for. */
export const CONFORMANCE_SERVER = join(ROOT, "test", "fixtures", "mcp", "conformance-server.mjs");
export const CLI = join(ROOT, "src", "cli", "main.ts");

/** The entry script of an MCP server package from node_modules (started with `node`, no npx, no network). */
export function serverScript(pkg: "server-everything" | "server-filesystem" | "server-memory"): string {
  const manifest = require.resolve(`@modelcontextprotocol/${pkg}/package.json`);
  const bin = (require(manifest) as { bin: Record<string, string> }).bin;
  return join(dirname(manifest), Object.values(bin)[0]);
}

/** An SDK client connected in-process to a gateway session. */
export async function connectInMemory(gateway: Gateway): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.createSession().connect(serverSide);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

/** The text of a tool result's first block. */
export function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  const first = content[0];
  return first && first.type === "text" ? first.text : JSON.stringify(content);
}

/** Names in a `search_tools` answer. */
export function foundNames(result: unknown): string[] {
  const text = textOf(result);
  return text.startsWith("{") ? (JSON.parse(text) as { results: { name: string }[] }).results.map((r) => r.name) : [];
}

/** Polls `check` until it returns true, at most `attempts` times, `intervalMs` apart. */
export async function eventually(check: () => Promise<boolean> | boolean, attempts = 100, intervalMs = 100): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`condition not met after ${attempts} attempts`);
}

/** Child processes of `pid` whose command line contains `needle`. */
export function childPids(pid: number, needle: string): number[] {
  let out = "";
  try {
    out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(pid)], { encoding: "utf8" });
  } catch {
    return []; // ps exits 1 when there are none
  }
  return out.split("\n").filter((line) => line.includes(needle)).map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Whether a process still exists (a zombie awaiting its reaping still counts for a moment). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A TCP port free on loopback right now (for servers that take a port but cannot report the one they got). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves with the first match of `pattern` in a child's stderr; rejects when the child exits first. */
export function waitForLine(child: ChildProcess, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = buffer.match(pattern);
      if (match) resolve(match);
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code}: ${buffer}`)));
  });
}
