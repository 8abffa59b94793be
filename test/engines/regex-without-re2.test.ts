/**
 * re2 is loaded on first regex search, not on import: in a project where its native module was not built (npm ≥
 * 11.19 blocks install scripts unless allowed), bm25 still works and regex fails with dependency_missing and the fix.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { fixture } from "../helpers/files.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

function runWithoutRe2(args: string[]) {
  const result = spawnSync(process.execPath, ["--require", fixture("no-re2.cjs"), "--import", "tsx", MAIN, ...args], { encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("without re2's native module", () => {
  const catalog = fixture("catalogs", "weather-finance.json");

  it("still searches with bm25", () => {
    const result = runWithoutRe2(["search", "weather in Paris", "--catalog", catalog, "--json"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).results[0].name, "get_weather");
  });

  it("answers a regex search with dependency_missing, naming re2 and the fix", () => {
    const result = runWithoutRe2(["search", "weather|forecast", "--engine", "regex", "--catalog", catalog, "--json"]);
    assert.equal(result.code, 1);
    const error = JSON.parse(result.stderr).error;
    assert.equal(error.code, "dependency_missing");
    assert.equal(error.details.package, "re2");
    assert.match(error.message, /"allowScripts": \{"re2": true\}.*npm rebuild re2/);
  });
});
