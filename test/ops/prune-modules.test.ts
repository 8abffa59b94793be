/**
 * scripts/prune-modules.mjs, which trims the container image's node_modules: on a small installed tree it removes the
 * packages only install-time tools need (and those tools), files Node never reads and bundler-only builds, and keeps
 * whatever a run-time package depends on or an entry point names. The real tree is checked by scripts/container-test.sh.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { makeTempDir } from "../helpers/temp-dir.js";

const SCRIPT = fileURLToPath(new URL("../../scripts/prune-modules.mjs", import.meta.url));

/** Writes `files` (path → content; objects become JSON) under `root`. */
function tree(root: string, files: Record<string, string | object>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), typeof content === "string" ? content : JSON.stringify(content));
  }
}

function prune(root: string): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [SCRIPT, root], { encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test("packages reachable only through install-time tools go; a package a run-time one also needs stays", () => {
  const root = makeTempDir();
  tree(root, {
    "package.json": { name: "app", dependencies: { native: "1", lib: "1" } },
    "node_modules/native/package.json": { name: "native", dependencies: { bindings: "1", "node-gyp": "1", "prebuild-install": "1" } },
    "node_modules/native/index.js": "",
    "node_modules/bindings/package.json": { name: "bindings" },
    "node_modules/node-gyp/package.json": { name: "node-gyp", dependencies: { tar: "1", shared: "1" } },
    "node_modules/prebuild-install/package.json": { name: "prebuild-install", dependencies: { "@scope/only-build": "1" } },
    "node_modules/@scope/only-build/package.json": { name: "@scope/only-build" },
    "node_modules/tar/package.json": { name: "tar" },
    "node_modules/shared/package.json": { name: "shared" },
    // An installed peer counts as a dependency; a peer that is not installed is simply absent.
    "node_modules/lib/package.json": { name: "lib", dependencies: { shared: "1", nested: "1" }, peerDependencies: { peer: "1", absent: "1" } },
    "node_modules/peer/package.json": { name: "peer" },
    // A nested copy is what `lib` resolves first; the top-level copy of the same name is reached by nothing.
    "node_modules/lib/node_modules/nested/package.json": { name: "nested" },
    "node_modules/nested/package.json": { name: "nested" },
  });
  const result = prune(root);
  assert.equal(result.code, 0, result.stderr);
  const has = (name: string) => existsSync(join(root, "node_modules", name, "package.json"));
  for (const kept of ["native", "bindings", "lib", "shared", "peer", "lib/node_modules/nested"]) assert.ok(has(kept), `${kept} is kept`);
  for (const gone of ["node-gyp", "prebuild-install", "@scope/only-build", "tar", "nested"]) assert.ok(!has(gone), `${gone} is removed`);
  assert.match(result.stdout, /removed 5 install-time packages \(@scope\/only-build, nested, node-gyp, prebuild-install, tar\)/);
});

test("declarations, maps, Markdown and unnamed test folders go; licences, entry points and named folders stay", () => {
  const root = makeTempDir();
  tree(root, {
    "package.json": { name: "app", dependencies: { a: "1", t: "1" } },
    "node_modules/a/package.json": { name: "a", main: "lib/index.js" },
    "node_modules/a/lib/index.js": "",
    "node_modules/a/lib/index.d.ts": "",
    "node_modules/a/lib/index.d.cts": "",
    "node_modules/a/lib/index.js.map": "",
    "node_modules/a/src/index.ts": "",
    "node_modules/a/README.md": "",
    "node_modules/a/LICENSE.md": "",
    "node_modules/a/test/a.test.js": "",
    "node_modules/a/lib/test/helper.js": "", // not at the package's root: may be loaded
    // A package whose entry point is in its test folder keeps it.
    "node_modules/t/package.json": { name: "t", main: "test/index.js" },
    "node_modules/t/test/index.js": "",
  });
  assert.equal(prune(root).code, 0);
  const has = (path: string) => existsSync(join(root, "node_modules", path));
  for (const kept of ["a/lib/index.js", "a/LICENSE.md", "a/lib/test/helper.js", "t/test/index.js"]) assert.ok(has(kept), `${kept} is kept`);
  for (const gone of ["a/lib/index.d.ts", "a/lib/index.d.cts", "a/lib/index.js.map", "a/src/index.ts", "a/README.md", "a/test"]) {
    assert.ok(!has(gone), `${gone} is removed`);
  }
});

test("a bundler-only build goes unless main or a Node condition of exports points into it", () => {
  const root = makeTempDir();
  tree(root, {
    "package.json": { name: "app", dependencies: { otel: "1", dual: "1" } },
    // OpenTelemetry's shape: main in build/src, module and esnext builds beside it, "esnext"/"module" conditions.
    "node_modules/otel/package.json": {
      name: "otel",
      main: "build/src/index.js",
      module: "build/esm/index.js",
      esnext: "build/esnext/index.js",
      exports: { ".": { esnext: "./build/esnext/index.js", module: "./build/esm/index.js", default: "./build/src/index.js" } },
    },
    "node_modules/otel/build/src/index.js": "",
    "node_modules/otel/build/esm/index.js": "",
    "node_modules/otel/build/esnext/index.js": "",
    // A dual package: Node's import condition names the ESM build, so it stays.
    "node_modules/dual/package.json": { name: "dual", main: "dist/cjs/index.js", module: "dist/esm/index.js", exports: { import: "./dist/esm/index.js", require: "./dist/cjs/index.js" } },
    "node_modules/dual/dist/cjs/index.js": "",
    "node_modules/dual/dist/esm/index.js": "",
  });
  assert.equal(prune(root).code, 0);
  const has = (path: string) => existsSync(join(root, "node_modules", path));
  assert.ok(has("otel/build/src/index.js"));
  assert.ok(!has("otel/build/esm") && !has("otel/build/esnext"), "otel's bundler builds are removed");
  assert.ok(has("dual/dist/esm/index.js") && has("dual/dist/cjs/index.js"), "both builds Node may load stay");
});

test("a folder without node_modules is a usage error (exit 2)", () => {
  const result = prune(makeTempDir());
  assert.equal(result.code, 2);
  assert.match(result.stderr, /usage: node scripts\/prune-modules\.mjs DIR/);
});
