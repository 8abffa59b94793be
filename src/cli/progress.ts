/**
 * Progress for long work: a bar with counts and ETA on an interactive terminal (stderr), nothing otherwise, so that
 * pipes, CI logs and `--json` output stay clean.
 */
import { createRequire } from "node:module";
import type cliProgressModule from "cli-progress";

// Required when a bar is first shown (on a terminal only), so that commands which never show one do not load it.
const require = createRequire(import.meta.url);

export interface Progress {
  /** Starts (or restarts) a phase of `total` steps. */
  start(label: string, total: number): void;
  update(done: number): void;
  stop(): void;
}

const SILENT: Progress = { start() {}, update() {}, stop() {} };

/** A bar on stderr when it is a TTY; a silent stand-in otherwise. */
export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return SILENT;
  const cliProgress = require("cli-progress") as typeof cliProgressModule;
  const bar = new cliProgress.SingleBar(
    { stream, format: "{label} [{bar}] {value}/{total} · {percentage}% · ETA {eta_formatted}", hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  let running = false;
  return {
    start(label, total) {
      if (running) bar.stop();
      bar.start(total, 0, { label });
      running = true;
    },
    update(done) {
      if (running) bar.update(done);
    },
    stop() {
      if (running) bar.stop();
      running = false;
    },
  };
}
