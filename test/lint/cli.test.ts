import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { fixture, tempFile } from "../helpers/files.js";

const good = fixture("lint", "seed-good.json");
const bad = fixture("lint", "seed-bad.json");

describe("toolsearch lint", () => {
  it("prints SPEC §4 JSON: {tools, findings:[{tool, rule, severity, message}]}", () => {
    const { code, stdout } = runCli(["lint", bad, "--json"]);
    assert.equal(code, 0);
    const out = JSON.parse(stdout);
    assert.equal(out.tools, 31);
    assert.ok(out.findings.length > 20);
    for (const f of out.findings) assert.deepEqual(Object.keys(f), ["tool", "rule", "severity", "message"]);
    assert.equal(typeof out.score, "number");
    assert.equal(out.summary.error, out.findings.filter((f: { severity: string }) => f.severity === "error").length);
  });

  it("groups the human report by tool, with counts per rule and a score", () => {
    const { code, stdout } = runCli(["lint", bad]);
    assert.equal(code, 0);
    assert.match(stdout, /^.*seed-bad\.json: 31 tools, \d+ findings \(6 errors, \d+ warnings, \d+ info\) — score \d+\/100/);
    assert.match(stdout, /\nprocess\n {2}warning {2}name\/vague/);
    assert.match(stdout, /rule +severity +findings/);
    const clean = runCli(["lint", good]);
    assert.match(clean.stdout, /6 tools, 0 findings .* score 100\/100\nNo findings\./);
  });

  it("--fail-on sets the exit code for CI", () => {
    const failed = runCli(["lint", bad, "--fail-on", "error"]);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /6 findings at or above "error"/);
    assert.equal(runCli(["lint", bad, "--fail-on", "warning", "--rule", "name/vague"]).code, 1);
    assert.equal(runCli(["lint", bad, "--fail-on", "error", "--ignore", "name/pattern,schema,catalog/duplicate-name"]).code, 0);
    assert.equal(runCli(["lint", good, "--fail-on", "info"]).code, 0);
  });

  it("--rule and --ignore select rules; unknown ones are bad usage", () => {
    const only = JSON.parse(runCli(["lint", bad, "--json", "--rule", "schema"]).stdout);
    assert.ok(only.findings.length > 0 && only.findings.every((f: { rule: string }) => f.rule.startsWith("schema/")));
    const unknown = runCli(["lint", bad, "--rule", "schema/nope"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown lint rule "schema\/nope"/);
    assert.equal(runCli(["lint", bad, "--fail-on", "sometimes"]).code, 2);
  });

  it("lists the rules with rationale and fix", () => {
    const rules = JSON.parse(runCli(["lint", "--list-rules", "--json"]).stdout);
    assert.ok(rules.length >= 20);
    for (const r of rules) assert.ok(r.id && r.severity && r.rationale && r.fix);
  });

  it("exits 1 for a file that cannot be parsed, but lints a catalog with invalid tools", () => {
    const broken = runCli(["lint", tempFile("broken.json", "[{")]);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /not valid JSON/);
    const yaml = tempFile("tools.yaml", "tools:\n  - name: get weather\n    description: Weather.\n    input_schema: {type: object}\n");
    const out = JSON.parse(runCli(["lint", yaml, "--json"]).stdout);
    assert.deepEqual(out.findings.map((f: { rule: string }) => f.rule).sort(), ["description/too-short", "name/pattern"]);
  });
});
