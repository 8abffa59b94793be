import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { fixture, tempFile } from "../helpers/files.js";

describe("toolsearch import openapi", () => {
  it("writes a catalog that lints without errors and searches, and reports skipped operations", () => {
    const out = tempFile("clinic-catalog.json", "");
    const result = runCli(["import", "openapi", fixture("openapi", "clinic.yaml"), fixture("openapi", "petstore-swagger2.json"), "--out", out, "--prefix", "clinic"]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /clinic\.yaml: 15 tools from "Clinic API" \(OpenAPI 3\.0\), 1 operation skipped/);
    assert.match(result.stdout, /skipped POST \/files\/\{file_id\}\/scan \(scanFile\): its required request body names no media type/);
    assert.match(result.stdout, /petstore-swagger2\.json: 2 tools from "Petstore \(Swagger 2\.0\)" \(OpenAPI 2\.0 \(converted to 3\.0\)\)/);
    assert.match(result.stdout, /wrote 17 tools to /);
    const tools = JSON.parse(readFileSync(out, "utf8")) as { name: string }[];
    assert.ok(tools.every((t) => t.name.startsWith("clinic__")));
    const lint = runCli(["lint", out, "--fail-on", "error", "--json"]);
    assert.equal(lint.code, 0, lint.stderr);
    assert.equal(JSON.parse(lint.stdout).findings.filter((f: { severity: string }) => f.severity === "error").length, 0);
    const search = runCli(["search", "register a new patient", "--catalog", out, "--json", "--limit", "1"]);
    assert.equal(search.code, 0, search.stderr);
    assert.equal(JSON.parse(search.stdout).results[0].name, "clinic__createPatient");
  });

  it("prints the catalog on stdout and the report on stderr without --out", () => {
    const result = runCli(["import", "openapi", fixture("openapi", "clinic-31.yaml"), "--base-url", "http://127.0.0.1:8080/api/v2"]);
    assert.equal(result.code, 0, result.stderr);
    const tools = JSON.parse(result.stdout) as { name: string; openapi: { server: string } }[];
    assert.deepEqual(tools.map((t) => t.name), ["bookAppointment", "getAppointment", "getAppointment_2"]);
    assert.equal(tools[0]!.openapi.server, "http://127.0.0.1:8080/api/v2");
    assert.match(result.stderr, /clinic-31\.yaml: 3 tools/);
  });

  it("gives a JSON report with --out --json", () => {
    const out = tempFile("report-catalog.json", "");
    const result = runCli(["import", "openapi", fixture("openapi", "clinic.yaml"), "--out", out, "--json"]);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as { specs: { tools: number; skipped: { reason: string }[] }[] };
    assert.equal(report.specs[0]!.tools, 15);
    assert.equal(report.specs[0]!.skipped.length, 1);
  });

  it("refuses a document it cannot read with exit 1 and one clear line, writing nothing", () => {
    const out = tempFile("never.json", "untouched");
    const result = runCli(["import", "openapi", fixture("openapi", "not-openapi.yaml"), "--out", out]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^toolsearch: .*not-openapi\.yaml: not a supported OpenAPI document/);
    assert.ok(!result.stderr.includes("    at "));
    assert.equal(readFileSync(out, "utf8"), "untouched");
    const bad = runCli(["import", "openapi", fixture("openapi", "clinic.yaml"), "--prefix", "no spaces"]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /prefix must be 1–40 letters/);
  });

  it("chooses a server by --server and fills --server-var, refusing an unknown server with the list", () => {
    const out = tempFile("vault.json", "");
    const chosen = runCli(["import", "openapi", fixture("openapi", "uploads.yaml"), "--out", out, "--server", "0", "--server-var", "port=8443", "version=v2"]);
    assert.equal(chosen.code, 0, chosen.stderr);
    const tools = JSON.parse(readFileSync(out, "utf8")) as { name: string; openapi: { server: string } }[];
    assert.equal(tools.find((t) => t.name === "uploadDocument")!.openapi.server, "http://127.0.0.1:8443/v2");
    const production = runCli(["import", "openapi", fixture("openapi", "uploads.yaml"), "--out", out, "--server", "production"]);
    assert.equal(production.code, 0, production.stderr);
    assert.equal((JSON.parse(readFileSync(out, "utf8")) as { openapi: { server: string } }[])[0]!.openapi.server, "https://vault.example.invalid/v1");
    const unknown = runCli(["import", "openapi", fixture("openapi", "uploads.yaml"), "--server", "staging"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no server has the URL or description "staging"; the document's servers are 0: .*\(local\); 1: .*\(production\)/);
    const malformed = runCli(["import", "openapi", fixture("openapi", "uploads.yaml"), "--server-var", "port"]);
    assert.equal(malformed.code, 1);
    assert.match(malformed.stderr, /--server-var takes name=value \(got "port"\)/);
  });
});
