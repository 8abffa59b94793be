#!/usr/bin/env node
/**
 * Trims a production install (`npm ci --omit=dev`) to what Node loads at run time, for the container image
 * (Containerfile). `npm prune` already left out dev dependencies; this removes what npm cannot know is not needed:
 *
 * - packages reachable only through install-time tools: node-gyp, nan, prebuild-install and
 *   install-artifact-from-github are dependencies of re2 and better-sqlite3 because their install scripts compile or
 *   download a binary, which the build stage has already done. A package stays when anything else depends on it.
 * - files Node never reads: type declarations, source maps, TypeScript sources, Markdown (licences and notices stay),
 *   and the `test`/`tests` folders at a package's root that its entry points do not name;
 * - builds for bundlers: the folder a package's `module`/`esnext`/`es2015` field points into (e.g. `build/esm`,
 *   `build/esnext` of the OpenTelemetry packages), when neither `main`, `bin` nor any Node condition of `exports`
 *   points into it. Node 20 resolves `main` and the `node`/`import`/`require`/`default` conditions, never those fields.
 *
 * Usage: node scripts/prune-modules.mjs DIR     (DIR holds package.json and node_modules; prints what it removed)
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";

const BUILD_ONLY = new Set(["node-gyp", "nan", "prebuild-install", "install-artifact-from-github"]);
/** Conditions of `exports` that only bundlers and other runtimes read. */
const NOT_NODE = new Set(["types", "typings", "module", "esnext", "browser", "react-native", "deno", "bun", "worker", "workerd", "edge-light"]);
const BUNDLER_FIELDS = ["module", "esnext", "es2015", "jsnext:main"];
const KEEP_NAMES = /^(licen[cs]e|notice|copying|authors|patents)/i;
const DROP_FILES = /(\.d\.[cm]?ts|\.[cm]?ts|\.map|\.md|\.markdown|\.tsbuildinfo)$/i;
const TEST_FOLDERS = new Set(["test", "tests", "__tests__"]);

const root = process.argv[2];
if (!root || !existsSync(join(root, "node_modules"))) {
  process.stderr.write("usage: node scripts/prune-modules.mjs DIR (with DIR/package.json and DIR/node_modules)\n");
  process.exit(2);
}

const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));
let freed = 0;
const remove = (path) => {
  freed += sizeOf(path);
  rmSync(path, { recursive: true, force: true });
};

/** Bytes under a path (files only). */
function sizeOf(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

/** Every installed package folder under `modules` (scoped and nested ones too). */
function installed(modules) {
  if (!existsSync(modules)) return [];
  const found = [];
  for (const name of readdirSync(modules)) {
    if (name.startsWith(".")) continue;
    const path = join(modules, name);
    if (name.startsWith("@")) {
      for (const scoped of readdirSync(path)) found.push(join(path, scoped), ...installed(join(path, scoped, "node_modules")));
    } else if (existsSync(join(path, "package.json"))) {
      found.push(path, ...installed(join(path, "node_modules")));
    }
  }
  return found;
}

/** Where Node finds `name` when required from the package folder `from`: the nearest node_modules upwards. */
function resolvePackage(from, name) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dir === root || dirname(dir) === dir) return undefined;
  }
}

/** Package folders reachable from the root's dependencies without passing through a build-only tool. */
function reachable() {
  const seen = new Set();
  const visit = (folder) => {
    if (seen.has(folder)) return;
    seen.add(folder);
    const manifest = readJson(join(folder, "package.json"));
    const names = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies });
    for (const name of names) {
      if (BUILD_ONLY.has(name)) continue;
      const found = resolvePackage(folder, name);
      if (found) visit(found); // an optional or omitted peer that is not installed is simply absent
    }
  };
  visit(root);
  return seen;
}

/** The paths (relative, without "./") that Node may load as a package's entry points. */
function entryPoints(manifest) {
  const entries = [];
  const collect = (value, key) => {
    if (typeof value === "string") {
      if (!NOT_NODE.has(key)) entries.push(value.replace(/^\.\//, ""));
    } else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) if (!NOT_NODE.has(k)) collect(v, k);
    }
  };
  collect(manifest.main ?? "index.js", "main");
  collect(manifest.exports, "exports");
  collect(typeof manifest.bin === "string" ? { bin: manifest.bin } : manifest.bin, "bin");
  return entries;
}

/** The first folders of a relative path (`build/esm/index.js` → `build/esm`), or undefined for a file at the top. */
function topFolder(path, depth) {
  const parts = path.replace(/^\.\//, "").split("/");
  return parts.length > depth ? parts.slice(0, depth).join("/") : undefined;
}

function pruneBundlerBuilds(folder, manifest, entries) {
  for (const field of BUNDLER_FIELDS) {
    const target = manifest[field];
    if (typeof target !== "string") continue;
    // "build/esm/index.js" → "build/esm"; "esm/index.js" → "esm"; a file at the package's top is left alone.
    const folderOf = topFolder(target, target.replace(/^\.\//, "").split("/").length > 2 ? 2 : 1);
    if (!folderOf || entries.some((entry) => entry === folderOf || entry.startsWith(`${folderOf}/`))) continue;
    const path = join(folder, folderOf);
    if (existsSync(path)) remove(path);
  }
}

function pruneFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) pruneFiles(path);
    else if (DROP_FILES.test(entry.name) && !KEEP_NAMES.test(entry.name)) remove(path);
  }
}

const modules = join(root, "node_modules");
const keep = reachable();
const dropped = [];
for (const folder of installed(modules)) {
  if (!existsSync(folder) || keep.has(folder)) continue;
  dropped.push(relative(modules, folder).split(sep).join("/"));
  remove(folder);
}
for (const folder of installed(modules)) {
  const manifest = readJson(join(folder, "package.json"));
  const entries = entryPoints(manifest);
  pruneBundlerBuilds(folder, manifest, entries);
  for (const name of TEST_FOLDERS) {
    const named = entries.some((entry) => entry === name || entry.startsWith(`${name}/`));
    if (!named && existsSync(join(folder, name))) remove(join(folder, name));
  }
}
pruneFiles(modules);
process.stdout.write(`prune-modules: removed ${dropped.length} install-time packages (${dropped.join(", ") || "none"}); ${(freed / 1e6).toFixed(1)} MB freed\n`);
