/**
 * A throwaway PostgreSQL 15 for tests and benchmarks: its own data folder in a temp dir, a free port on 127.0.0.1,
 * the unix socket in that temp dir, stopped and removed afterwards (also when a test fails or the process exits).
 *
 * `initdb` and `postgres` refuse to run as root, so as root they run as the `postgres` system user (`runuser`).
 *
 * @example
 * const pg = await startPostgres();          // or: skip when `postgresMissing` says why
 * const url = await pg.createDatabase();     // postgres://postgres@127.0.0.1:PORT/t1
 * await pg.stop(); await pg.start();         // a fault: the server goes away and comes back on the same port
 * await pg.destroy();
 */
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);
const BIN = process.env.TOOLSEARCH_PG_BIN ?? "/usr/lib/postgresql/15/bin";

/** Why PostgreSQL tests cannot run here (undefined when they can): a reason for `{ skip }`. */
export const postgresMissing: string | undefined = existsSync(join(BIN, "postgres"))
  ? undefined
  : `PostgreSQL 15 server binaries not found in ${BIN} (install postgresql-15; .ci/run does)`;

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  readonly url: string;
  readonly port: number;
  /** A new empty database; its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (`fast`: clients are disconnected; `immediate`: a crash without a shutdown checkpoint). */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and removes its data. Safe to call twice. */
  destroy(): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL binary as the `postgres` user when we are root. */
async function pgBin(name: string, args: string[]): Promise<void> {
  const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", join(BIN, name), ...args]] : [join(BIN, name), args];
  await run(file, argv, { timeout: 60_000 });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let databases = 0;

/** Starts a fresh PostgreSQL; see the module comment. */
export async function startPostgres(): Promise<PostgresServer> {
  if (postgresMissing) throw new Error(postgresMissing);
  const dir = mkdtempSync(join(tmpdir(), "toolsearch-pg-"));
  const data = join(dir, "data");
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  // Whatever happens to the test, the server must not outlive this process.
  const onExit = () => {
    killNow(data);
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", onExit);
  try {
    await pgBin("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
  } catch (error) {
    onExit();
    process.off("exit", onExit);
    throw error;
  }
  let port = 0;
  let running = false;
  const start = async () => {
    // fsync off: the tests crash processes, not the machine, and the OS cache survives a process crash.
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    await pgBin("pg_ctl", ["start", "-w", "-t", "60", "-D", data, "-l", join(dir, "log"), "-o", options]);
    running = true;
  };
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (error) {
      if (attempt >= 2) {
        onExit();
        process.off("exit", onExit);
        throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${readLog(dir)}`);
      }
    }
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let destroyed = false;
  return {
    url,
    port,
    async createDatabase(name = `t${++databases}_${process.pid}`) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop(mode = "fast") {
      if (!running) return;
      await pgBin("pg_ctl", ["stop", "-w", "-t", "60", "-D", data, "-m", mode]);
      running = false;
    },
    start,
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      try {
        if (running) await pgBin("pg_ctl", ["stop", "-w", "-t", "60", "-D", data, "-m", "immediate"]);
      } catch {
        killNow(data);
      }
      running = false;
      rmSync(dir, { recursive: true, force: true });
      process.off("exit", onExit);
    },
  };
}

/** Synchronous last resort (for `exit`): SIGQUIT to the postmaster named in postmaster.pid. */
function killNow(data: string): void {
  try {
    const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    if (pid > 0) process.kill(pid, "SIGQUIT");
  } catch {
    // Not running.
  }
}

function readLog(dir: string): string {
  try {
    return readFileSync(join(dir, "log"), "utf8").slice(-2000);
  } catch {
    return "";
  }
}
