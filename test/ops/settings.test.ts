/**
 * Settings from the environment (SPEC §18): every `serve` option has a TOOLSEARCH_<FLAG> form, the flag wins, PORT is
 * honoured, `--store` reads TOOLSEARCH_STORE and TOOLSEARCH_STORE_FILE in every command that has it, and an option
 * added to `serve` later gets its form without an edit. Options are parsed by the real program (buildProgram) with the
 * command's action swapped for one that records the flags, so nothing is started.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Command, type Option } from "commander";
import { buildProgram } from "../../src/cli/program.js";
import { applyEnvironment, attachEnvironment, envSettingOf } from "../../src/ops/settings.js";
import { makeTempDir as tempDir } from "../helpers/temp-dir.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

/** Parses `argv` with the real program under `env` (added to a process environment cleared of TOOLSEARCH_* and PORT). */
async function parse(argv: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const saved = { ...process.env };
  for (const name of Object.keys(process.env)) if (name.startsWith("TOOLSEARCH_") || name === "PORT") delete process.env[name];
  Object.assign(process.env, env);
  try {
    const program = await buildProgram({ argv });
    let leaf = program;
    for (const word of argv.filter((arg) => !arg.startsWith("-"))) leaf = leaf.commands.find((c) => c.name() === word) ?? leaf;
    let flags: Record<string, unknown> = {};
    leaf.action((...args: unknown[]) => {
      flags = args.at(-2) as Record<string, unknown>;
    });
    await program.parseAsync(argv, { from: "user" });
    return flags;
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
}

/** Every command (subcommands too) with its options. */
function commands(program: Command): Command[] {
  return program.commands.flatMap((command) => [command, ...commands(command)]);
}

test("every serve option has a TOOLSEARCH_<FLAG> form, each name its own; --port also reads PORT; the store is a secret", async () => {
  const serve = (await buildProgram({ argv: ["serve"] })).commands.find((c) => c.name() === "serve")!;
  const names = serve.options.map((option: Option) => envSettingOf(option)?.names[0]);
  assert.equal(names.includes(undefined), false, "an option without an environment form");
  assert.equal(new Set(names).size, names.length, "two options share a variable");
  for (const option of serve.options) {
    const expected = `TOOLSEARCH_${option.long!.slice(2).replace(/-/g, "_").toUpperCase()}`;
    assert.equal(envSettingOf(option)!.names[0], expected);
    assert.equal(option.envVar, expected, "commander's help shows the variable");
  }
  const port = serve.options.find((option) => option.long === "--port")!;
  assert.deepEqual(envSettingOf(port)!.names, ["TOOLSEARCH_PORT", "PORT"]);
  const secrets = serve.options.filter((option) => envSettingOf(option)!.secret).map((option) => option.long);
  assert.ok(secrets.includes("--store"), `secret-bearing: ${secrets.join(", ")}`);
  assert.equal(secrets.includes("--port"), false);
});

test("serve takes values from the environment, parsed and checked as the flags are; the flag wins", async () => {
  const flags = await parse(["serve"], {
    TOOLSEARCH_HOST: "0.0.0.0",
    TOOLSEARCH_PORT: "9000",
    TOOLSEARCH_PRELOAD: "crm, kb",
    TOOLSEARCH_CATALOG: "a.json,b.json",
    TOOLSEARCH_MEMORY_BUDGET: "64",
    TOOLSEARCH_PUBLIC_METRICS: "true",
    TOOLSEARCH_EXPOSE_FOUND: "0",
    TOOLSEARCH_NO_AUTH: "yes",
  });
  assert.equal(flags.host, "0.0.0.0");
  assert.equal(flags.port, 9000);
  assert.deepEqual(flags.preload, ["crm", "kb"]);
  assert.deepEqual(flags.catalog, ["a.json", "b.json"]);
  assert.equal(flags.memoryBudget, 64);
  assert.equal(flags.publicMetrics, true);
  assert.equal(flags.exposeFound, undefined, "a boolean variable set to 0 leaves the flag off");
  assert.equal(flags.auth, false, "TOOLSEARCH_NO_AUTH=yes is --no-auth");
  assert.equal((await parse(["serve", "--port", "7000", "--host", "::1"], { TOOLSEARCH_PORT: "9000", TOOLSEARCH_HOST: "0.0.0.0" })).port, 7000);
  assert.equal((await parse(["serve", "--host", "::1"], { TOOLSEARCH_HOST: "0.0.0.0" })).host, "::1");
  assert.equal((await parse(["serve"], { TOOLSEARCH_NO_AUTH: "false" })).auth, true);
  assert.equal((await parse(["serve"], {})).port, 8080);
});

test("PORT is honoured, after TOOLSEARCH_PORT and the flag", async () => {
  assert.equal((await parse(["serve"], { PORT: "3000" })).port, 3000);
  assert.equal((await parse(["serve"], { PORT: "3000", TOOLSEARCH_PORT: "4000" })).port, 4000);
  assert.equal((await parse(["serve", "--port", "5000"], { PORT: "3000" })).port, 5000);
});

test("a bad value names its variable and the rule, as a usage error (exit 2)", async () => {
  await assert.rejects(parse(["serve"], { TOOLSEARCH_PORT: "eighty" }), /TOOLSEARCH_PORT takes a whole number from 0 to 65535 \(got "eighty"\)/);
  await assert.rejects(parse(["serve"], { PORT: "70000" }), /PORT takes a whole number from 0 to 65535/);
  await assert.rejects(parse(["serve"], { TOOLSEARCH_TRUST_UPDATES: "maybe" }), /TOOLSEARCH_TRUST_UPDATES: takes true or false/);
});

test("the store comes from TOOLSEARCH_STORE or TOOLSEARCH_STORE_FILE (trailing newline trimmed) in every command that has --store", async () => {
  const dir = tempDir();
  const url = "postgres://toolsearch:s3cret-pw@db.internal/toolsearch";
  writeFileSync(join(dir, "store-url"), `${url}\n`);
  const withStore = commands(await buildProgram()).filter((command) => command.options.some((option) => option.long === "--store"));
  assert.ok(withStore.length >= 6, `commands with --store: ${withStore.map((c) => c.name()).join(", ")}`);
  for (const command of withStore) {
    const store = command.options.find((option) => option.long === "--store")!;
    assert.deepEqual(envSettingOf(store), { names: ["TOOLSEARCH_STORE"], secret: true }, `${command.name()} --store`);
  }
  for (const argv of [["serve"], ["keys", "list"], ["keys", "create", "--scope", "read"], ["audit"], ["usage", "export", "--collection", "c"], ["mcp"]]) {
    assert.equal((await parse(argv, { TOOLSEARCH_STORE_FILE: join(dir, "store-url") })).store, url, argv.join(" "));
    assert.equal((await parse(argv, { TOOLSEARCH_STORE: "/data/x.sqlite" })).store, "/data/x.sqlite", argv.join(" "));
    assert.equal((await parse([...argv, "--store", "flag.sqlite"], { TOOLSEARCH_STORE: "/data/x.sqlite" })).store, "flag.sqlite", argv.join(" "));
  }
  // Options that are not settings of these commands stay off the environment: keys create's --scope is not read.
  assert.equal((await parse(["keys", "create", "--scope", "read"], { TOOLSEARCH_SCOPE: "admin" })).scope, "read");
});

test("a missing, unreadable or empty secret file is a usage error naming the variable and the file, never the value", async () => {
  const dir = tempDir();
  mkdirSync(join(dir, "a-directory"));
  writeFileSync(join(dir, "empty"), "\n");
  await assert.rejects(parse(["serve"], { TOOLSEARCH_STORE_FILE: join(dir, "missing") }), (error: Error) => {
    assert.equal(error.message, `TOOLSEARCH_STORE_FILE names ${join(dir, "missing")}, which cannot be read (ENOENT)`);
    return true;
  });
  await assert.rejects(parse(["keys", "list"], { TOOLSEARCH_STORE_FILE: join(dir, "a-directory") }), /TOOLSEARCH_STORE_FILE names .*a-directory, which cannot be read \(EISDIR\)/);
  await assert.rejects(parse(["serve"], { TOOLSEARCH_STORE_FILE: join(dir, "empty") }), /TOOLSEARCH_STORE_FILE names .*empty, which is empty/);
  const secret = "postgres://u:hunter2@h/db";
  await assert.rejects(parse(["serve"], { TOOLSEARCH_STORE: secret, TOOLSEARCH_STORE_FILE: join(dir, "empty") }), (error: Error) => {
    assert.match(error.message, /both TOOLSEARCH_STORE and TOOLSEARCH_STORE_FILE are set/);
    assert.doesNotMatch(error.message, /hunter2/);
    return true;
  });
  // Only secret-bearing settings read *_FILE: a port is not one.
  writeFileSync(join(dir, "port"), "9999\n");
  assert.equal((await parse(["serve"], { TOOLSEARCH_PORT_FILE: join(dir, "port") })).port, 8080);
});

test("the real CLI: keys create and keys list find the store through the environment; errors exit 2 on stderr", () => {
  const dir = tempDir();
  const store = join(dir, "from-env.sqlite");
  writeFileSync(join(dir, "store-path"), `${store}\n`);
  const env = { TOOLSEARCH_HOME: join(dir, "home") };
  const created = runCliWith(["keys", "create", "--scope", "admin", "--json"], { ...env, TOOLSEARCH_STORE: store });
  assert.equal(created.code, 0, created.stderr);
  const { id } = JSON.parse(created.stdout) as { id: string };
  const listed = runCliWith(["keys", "list", "--json"], { ...env, TOOLSEARCH_STORE_FILE: join(dir, "store-path") });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(id));
  const refused = runCliWith(["serve"], { ...env, TOOLSEARCH_NO_AUTH: "1", TOOLSEARCH_HOST: "0.0.0.0", TOOLSEARCH_STORE: store });
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /--no-auth is refused on --host 0\.0\.0\.0/);
  const badFile = runCliWith(["keys", "list", "--json"], { ...env, TOOLSEARCH_STORE_FILE: join(dir, "nope") });
  assert.equal(badFile.code, 2);
  assert.deepEqual(JSON.parse(badFile.stderr), { error: { code: "invalid_option", message: `TOOLSEARCH_STORE_FILE names ${join(dir, "nope")}, which cannot be read (ENOENT)` } });
});

test("TOOLSEARCH_DEFAULT_STORE (the image's /data/toolsearch.sqlite) is every command's default; TOOLSEARCH_STORE_FILE and the flag replace it", () => {
  const dir = tempDir();
  const home = join(dir, "home");
  const fallback = join(dir, "toolsearch.sqlite");
  const env = { TOOLSEARCH_HOME: home, TOOLSEARCH_DEFAULT_STORE: fallback };
  const created = runCliWith(["keys", "create", "--scope", "admin", "--json"], env);
  assert.equal(created.code, 0, created.stderr);
  const { id } = JSON.parse(created.stdout) as { id: string };
  assert.ok(existsSync(fallback), "keys create wrote the default store");
  assert.ok(!existsSync(join(home, "store.sqlite")), "not $TOOLSEARCH_HOME/store.sqlite");
  const listed = (extra: Record<string, string>, args: string[] = []) => {
    const result = runCliWith(["keys", "list", "--json", ...args], { ...env, ...extra });
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  };
  assert.match(listed({}), new RegExp(id));
  assert.ok(runCliWith(["keys", "list", "--help"], env).stdout.replace(/\s+/g, " ").includes(`(default ${fallback})`), "the help names it");
  // A store URL or path from a mounted secret replaces the default: no "both set" clash, the other store is used.
  const other = join(dir, "other.sqlite");
  writeFileSync(join(dir, "store-path"), `${other}\n`);
  assert.doesNotMatch(listed({ TOOLSEARCH_STORE_FILE: join(dir, "store-path") }), new RegExp(id));
  assert.ok(existsSync(other));
  assert.doesNotMatch(listed({}, ["--store", join(dir, "flag.sqlite")]), new RegExp(id));
});

test("an option added to serve later gets its environment form with no edit to the settings", async () => {
  const program = new Command("toolsearch").exitOverride();
  let flags: Record<string, unknown> = {};
  const serve = program
    .command("serve")
    .option("--drain-seconds <s>", "keep serving this long after SIGTERM", (value) => Number(value), 5)
    .option("--trace-queries", "put query text on spans")
    .option("--upstream-token <t>", "a secret one")
    .action((options: Record<string, unknown>) => {
      flags = options;
    });
  attachEnvironment(program);
  program.hook("preAction", (_program, command) => applyEnvironment(command, { TOOLSEARCH_DRAIN_SECONDS: "12", TOOLSEARCH_TRACE_QUERIES: "on" }));
  await program.parseAsync(["serve"], { from: "user" });
  assert.deepEqual(flags, { drainSeconds: 12, traceQueries: true });
  assert.equal(envSettingOf(serve.options[2])!.secret, true, "--upstream-token reads TOOLSEARCH_UPSTREAM_TOKEN_FILE too");
});

/** The real CLI in a child process, its environment cleared of TOOLSEARCH_* and PORT, plus `extra`. */
function runCliWith(args: string[], extra: Record<string, string>): { code: number | null; stdout: string; stderr: string } {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("TOOLSEARCH_") && name !== "PORT"));
  const result = spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], { encoding: "utf8", env: { ...env, ...extra, FORCE_COLOR: "0" } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
