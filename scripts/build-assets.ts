/**
 * `npm run build` step: bundles the web console and the eval report's script from `src/console/` into
 * `dist/assets/web/`, where the built package looks for them, and prints each file's size (raw and gzipped); copies
 * the learned ranker's model (`src/ranking/model.json`, read at run time beside `dist/ranking/model.js`).
 */
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { writeBundles } from "../src/assets/bundles.js";

const out = fileURLToPath(new URL("../dist/assets/web/", import.meta.url));
const files = await writeBundles(out);
for (const name of files.sort()) {
  const body = readFileSync(join(out, name));
  process.stdout.write(`${name.padEnd(32)} ${String(body.length).padStart(8)} B  ${String(gzipSync(body, { level: 9 }).length).padStart(7)} B gzipped\n`);
}

const model = fileURLToPath(new URL("../dist/ranking/model.json", import.meta.url));
mkdirSync(join(model, ".."), { recursive: true });
copyFileSync(fileURLToPath(new URL("../src/ranking/model.json", import.meta.url)), model);
process.stdout.write(`${"ranking/model.json".padEnd(32)} ${String(readFileSync(model).length).padStart(8)} B\n`);
