/** Temporary folders for tests, removed when the test file's process exits (node --test runs each file on its own). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];
process.once("exit", () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder under the system's temp dir, named `PREFIX…`, gone once the tests of this file have run. */
export function makeTempDir(prefix = "toolsearch-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
