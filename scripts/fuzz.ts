/**
 * Long runs of the property tests (test/fuzz): `npm run fuzz -- [RUNS] [SEED]` (defaults 5000 runs, a seed from the
 * clock, printed first so that a failure can be replayed with the same seed; fast-check also prints the seed and
 * path of a failing case).
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [runsArg, seedArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 5000);
const seed = Number(seedArg ?? Date.now() % 2 ** 31);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed)) {
  process.stderr.write("usage: npm run fuzz -- [RUNS (a whole number ≥ 1)] [SEED (a whole number)]\n");
  process.exit(2);
}
const folder = join(dirname(fileURLToPath(import.meta.url)), "..", "test", "fuzz");
const files = readdirSync(folder).filter((f) => f.endsWith(".test.ts")).map((f) => join(folder, f));
process.stdout.write(`fuzz: ${runs} runs per property, seed ${seed}, ${files.length} files\n`);
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-reporter=spec", ...files], {
  stdio: "inherit",
  env: { ...process.env, TOOLSEARCH_FUZZ_RUNS: String(runs), TOOLSEARCH_FUZZ_SEED: String(seed) },
});
process.exit(result.status ?? 1);
