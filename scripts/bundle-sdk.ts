/**
 * `npm run build` step, after tsc: replaces the compiled `dist/mcp/sdk.js`, `sdk-client.js` and `sdk-http.js` (plain
 * re-exports of the MCP SDK) by one esbuild bundle of the SDK and its dependencies, split into those three entry
 * points and the chunks they share (one copy of the SDK's classes for all three). Loading a few files instead of
 * about 900 is what brings the gateway's launch under a second (docs/benchmarks.md, "Launch time").
 *
 * ajv and ajv-formats stay outside: toolsearch depends on them itself, and one copy of each is loaded, not two.
 * Their type declarations (`.d.ts`) are tsc's, unchanged.
 */
import { rmSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const CHUNK_PREFIX = "sdk-chunk-";
const ENTRIES = ["sdk", "sdk-client", "sdk-http"];

/** Writes the bundles into `out` (default `dist/mcp`); returns each file written with its size in bytes. */
export async function bundleSdk(out = join(root, "dist", "mcp")): Promise<[string, number][]> {
  // Chunks of an earlier build would linger (their names hold a hash of their content), and tsc's source maps of the
  // re-exports would describe files that are no longer there.
  for (const name of readdirSync(out)) if (name.startsWith(CHUNK_PREFIX)) rmSync(join(out, name));
  for (const entry of ENTRIES) rmSync(join(out, `${entry}.js.map`), { force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: ENTRIES.map((entry) => `src/mcp/${entry}.ts`),
    outdir: out,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    chunkNames: `${CHUNK_PREFIX}[hash]`,
    external: ["ajv", "ajv-formats"],
    // Some of the SDK's dependencies are CommonJS and call require() for node's own modules, which an ES module lacks.
    banner: { js: 'import { createRequire as __toolsearchRequire } from "node:module"; const require = __toolsearchRequire(import.meta.url);' },
    legalComments: "inline",
    logLevel: "warning",
    metafile: true,
  });
  return Object.keys(result.metafile.outputs).sort().map((file) => [file, statSync(resolve(root, file)).size]);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const [file, size] of await bundleSdk()) process.stdout.write(`${file.padEnd(40)} ${String(size).padStart(8)} B\n`);
}
