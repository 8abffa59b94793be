/**
 * Errors a program can read (SPEC §4, §10): with `--json`, every error the CLI can produce is one line of JSON on
 * stderr, `{"error":{"code","message","details?"}}`, with its stable code and the right exit code; one test per code.
 * Also: a reader that closes stdout early (`| head -c 100`) ends the command quietly.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { ErrorCodes } from "../../src/errors.js";
import { inProcessCli } from "../helpers/cli.js";
import { fixture, tempFile } from "../helpers/files.js";

const catalog = fixture("catalogs", "weather-finance.json");
const docs = fixture("documents", "help-center.jsonl");

/** The CLI, run in-process by a worker so that this file's stdout stays the test runner's. */
const runCaptured = inProcessCli();

/** Asserts that stderr is exactly one line of error JSON with `code`, and returns the error object. */
async function expectError(argv: string[], code: string, exit = 1): Promise<{ code: string; message: string; details?: Record<string, unknown> }> {
  const result = await runCaptured([...argv, "--json"]);
  assert.equal(result.code, exit, `exit code of ${argv.join(" ")}: ${result.stderr}`);
  assert.equal(result.stderr.endsWith("\n") && result.stderr.indexOf("\n") === result.stderr.length - 1, true, `one line: ${result.stderr}`);
  const parsed = JSON.parse(result.stderr) as { error: { code: string; message: string; details?: Record<string, unknown> } };
  assert.deepEqual(Object.keys(parsed), ["error"]);
  assert.equal(parsed.error.code, code, result.stderr);
  assert.equal(typeof parsed.error.message, "string");
  assert.ok(parsed.error.message.length > 0);
  assert.doesNotMatch(result.stderr, /\bat .*\.(ts|js):\d+/, "no stack trace");
  return parsed.error;
}

describe("--json errors: one line of JSON on stderr per code", () => {
  it("file_unreadable", async () => {
    const error = await expectError(["search", "x", "--catalog", fixture("catalogs", "no-such-catalog.json")], "file_unreadable");
    assert.match(error.message, /no-such-catalog\.json/);
  });

  it("file_parse", async () => {
    await expectError(["search", "x", "--catalog", tempFile("broken.json", "[{\"name\": ")], "file_parse");
  });

  it("catalog_invalid, with every problem in details", async () => {
    const path = tempFile("bad-tools.json", JSON.stringify([{ name: "bad name", input_schema: { type: "object" } }, { name: "ok", input_schema: { type: "array" } }]));
    const error = await expectError(["search", "x", "--catalog", path], "catalog_invalid");
    const problems = error.details?.problems as { index: number; rule: string }[];
    assert.deepEqual(problems.map((p) => p.index), [0, 1]);
    assert.match(problems[0].rule, /name must match/);
  });

  it("catalog_invalid with a schema_too_large problem for a 3,000-deep schema", async () => {
    let schema = '{"type":"string"}';
    for (let i = 0; i < 3000; i++) schema = `{"type":"object","properties":{"a":${schema}}}`;
    const path = tempFile("deep-tools.json", `[{"name":"deep","input_schema":${schema}}]`);
    const error = await expectError(["search", "x", "--catalog", path], "catalog_invalid");
    assert.equal((error.details?.problems as { code?: string }[])[0].code, "schema_too_large");
  });

  it("file_unwritable: eval --report into a path that cannot be a file", async () => {
    const queries = tempFile("good-queries.jsonl", `${JSON.stringify({ id: "q1", query: "weather", relevant: ["get_weather"] })}\n`);
    const notADirectory = tempFile("plain-file.txt", "x");
    await expectError(["eval", "--catalog", catalog, "--queries", queries, "--engine", "bm25", "--report", `${notADirectory}/report.html`], "file_unwritable");
  });

  it("documents_invalid", async () => {
    await expectError(["docs", "search", "x", "--docs", tempFile("bad-docs.jsonl", '{"id":"a"}\n')], "documents_invalid");
  });

  it("queries_invalid", async () => {
    await expectError(["eval", "--catalog", catalog, "--queries", tempFile("bad-queries.jsonl", '{"id":"q1"}\n')], "queries_invalid");
  });

  it("pattern_too_long", async () => {
    await expectError(["search", "a".repeat(201), "--catalog", catalog, "--engine", "regex"], "pattern_too_long");
  });

  it("invalid_pattern (the issue's example)", async () => {
    const error = await expectError(["search", "get_(stock", "--catalog", catalog, "--engine", "regex"], "invalid_pattern");
    assert.match(error.message, /get_\(stock/);
  });

  it("unknown_tool, with suggestions in details", async () => {
    const error = await expectError(["describe", "get_wether", "--catalog", catalog], "unknown_tool");
    assert.ok((error.details?.suggestions as string[]).includes("get_weather"));
  });

  it("unknown_document", async () => {
    await expectError(["docs", "read", "kb-nothing-here", "--docs", docs], "unknown_document");
  });

  it("unknown_engine", async () => {
    await expectError(["search", "x", "--catalog", catalog, "--engine", "telepathy"], "unknown_engine");
  });

  it("invalid_option: an unknown embedder (exit 1); a limit out of range, an unknown lint rule (usage, exit 2)", async () => {
    await expectError(["search", "x", "--catalog", catalog, "--engine", "semantic", "--embedder", "word2vec", "--no-cache"], "invalid_option");
    await expectError(["search", "x", "--catalog", catalog, "--limit", "0"], "invalid_option", 2);
    await expectError(["lint", catalog, "--rule", "name/nonsense"], "invalid_option", 2);
  });

  it("lint_failed, with the report still on stdout", async () => {
    const path = tempFile("lint-bad.json", JSON.stringify([{ name: "bad name", input_schema: { type: "object" } }]));
    await expectError(["lint", path, "--fail-on", "error"], "lint_failed");
    const result = await runCaptured(["lint", path, "--fail-on", "error", "--json"]);
    assert.ok(JSON.parse(result.stdout).findings.length > 0);
  });

  it("config_invalid (mcp, before anything starts)", async () => {
    await expectError(["mcp", "--config", tempFile("gateway.json", JSON.stringify({ mcpServers: { broken: { args: ["x"] } } }))], "config_invalid");
  });

  it("embedding_failed", async () => {
    await expectError(["search", "x", "--catalog", catalog, "--engine", "semantic", "--embedder", `onnx:${tempFile("not-a-model", "")}`, "--no-cache"], "embedding_failed");
  });

  it("invalid_usage: an unknown flag, a missing argument (exit 2, and commander prints nothing else)", async () => {
    const error = await expectError(["search", "x", "--catalog", catalog, "--bogus"], "invalid_usage", 2);
    assert.match(error.message, /--bogus/);
    await expectError(["search", "--catalog", catalog], "invalid_usage", 2);
  });

  it("without --json, the message stays for people", async () => {
    const result = await runCaptured(["search", "get_(stock", "--catalog", catalog, "--engine", "regex"]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^toolsearch: Invalid pattern "get_\(stock"/);
  });

  it("docs/errors.md has a row for every code", () => {
    const table = readFileSync(fileURLToPath(new URL("../../docs/errors.md", import.meta.url)), "utf8");
    for (const code of Object.keys(ErrorCodes)) assert.match(table, new RegExp(`^\\| \`${code}\` \\|`, "m"), `docs/errors.md lacks ${code}`);
  });
});

describe("a reader that stops early", () => {
  it("ends quietly when stdout is closed before the output is written", async () => {
    const main = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", main, "lint", catalog, "--json"], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy(); // like `| head -c 0`: the pipe is closed before the command writes
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += String(chunk)));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(stderr, "");
    assert.equal(code, 0);
  });
});
