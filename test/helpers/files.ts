/** Test helpers: temporary files that clean themselves up, and fixture paths. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Absolute path of a file under test/fixtures. */
export function fixture(...parts: string[]): string {
  return fileURLToPath(new URL(`../fixtures/${parts.join("/")}`, import.meta.url));
}

let dir: string | undefined;

/** Writes `content` to a fresh temporary file named `name` and returns its path; removed after the test file. */
export function tempFile(name: string, content: string): string {
  if (!dir) {
    dir = mkdtempSync(join(tmpdir(), "toolsearch-test-"));
    const created = dir;
    // On exit rather than in an `after` hook: a hook registered inside one test would run when that test ends.
    process.on("exit", () => rmSync(created, { recursive: true, force: true }));
  }
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
