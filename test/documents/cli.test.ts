import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { fixture } from "../helpers/files.js";

const docs = fixture("documents", "help-center.jsonl");

describe("toolsearch docs", () => {
  it("docs search prints SPEC §4 JSON", () => {
    const { code, stdout } = runCli(["docs", "search", "How do I get a refund?", "--docs", docs, "--limit", "2", "--json"]);
    assert.equal(code, 0);
    const out = JSON.parse(stdout);
    assert.equal(out.query, "How do I get a refund?");
    assert.equal(out.results[0].id, "kb-refunds");
    for (const key of ["id", "title", "score", "snippet"]) assert.ok(key in out.results[0]);
  });

  it("docs read pages with --offset and --max-chars, and exits 1 on an unknown id", () => {
    const { code, stdout } = runCli(["docs", "read", "kb-refunds", "--docs", docs, "--offset", "4", "--max-chars", "30", "--json"]);
    assert.equal(code, 0);
    const page = JSON.parse(stdout);
    assert.equal(page.offset, 4);
    assert.ok(page.text.length <= 30);
    assert.ok(page.total_chars > 30);
    const missing = runCli(["docs", "read", "kb-refund", "--docs", docs]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Did you mean: kb-refunds/);
  });

  it("prints guidance when nothing matches, and exits 2 on bad usage", () => {
    const none = runCli(["docs", "search", "student discount", "--docs", docs]);
    assert.equal(none.code, 0);
    assert.match(none.stdout, /No articles match/);
    assert.equal(runCli(["docs", "search", "x", "--docs", docs, "--engine", "nope"]).code, 2);
  });

  it("eval --docs reports SPEC §5 metrics", () => {
    const { code, stdout, stderr } = runCli(["eval", "--docs", docs, "--queries", fixture("documents", "queries.jsonl"), "--json"]);
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout);
    assert.equal(report.queries, 4);
    assert.equal(report.engines.bm25["recall@5"], 1);
    assert.equal(report.engines.bm25["mrr@10"], 1);
  });
});
