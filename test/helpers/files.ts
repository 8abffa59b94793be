/** Test helpers: temporary files that clean themselves up, and fixture paths. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeTempDir } from "./temp-dir.js";

/** Absolute path of a file under test/fixtures. */
export function fixture(...parts: string[]): string {
  return fileURLToPath(new URL(`../fixtures/${parts.join("/")}`, import.meta.url));
}

let dir: string | undefined;

/** Writes `content` to a fresh temporary file named `name` and returns its path; removed after the test file. */
export function tempFile(name: string, content: string): string {
  if (!dir) {
    // Removed on exit rather than in an `after` hook: a hook registered inside one test would run when that test ends.
    dir = makeTempDir("toolsearch-test-");
  }
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
