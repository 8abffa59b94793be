import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { checkDocuments, loadDocuments } from "../../src/catalog/documents.js";
import { DocumentIndex } from "../../src/indexes/document-index.js";
import { ToolsearchError } from "../../src/errors.js";
import { fixture, tempFile } from "../helpers/files.js";
import { makeTempDir } from "../helpers/temp-dir.js";

function refused(fn: () => unknown, ...patterns: RegExp[]): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof ToolsearchError, String(error));
    assert.equal(error.code, "documents_invalid");
    assert.match(error.message, /refused, nothing was loaded/);
    for (const p of patterns) assert.match(error.message, p);
    return true;
  });
}

describe("documents from JSONL", () => {
  it("loads {id, title, body, url?} per line", () => {
    const docs = loadDocuments(fixture("documents", "help-center.jsonl"));
    assert.equal(docs.length, 5);
    assert.deepEqual(docs[0], { id: "kb-refunds", title: "Refund policy", body: docs[0].body, url: "https://help.example.com/refunds" });
    assert.equal(docs[1].url, undefined);
  });

  it("refuses the whole set, naming every duplicate, missing id and empty title", () => {
    const lines = [
      { id: "a", title: "A", body: "x" },
      { id: "a", title: "Again", body: "y" },
      { title: "No id", body: "z" },
      { id: "c", title: "  ", body: "w" },
      { id: "d", title: "D", body: 3 },
    ].map((r) => JSON.stringify(r)).join("\n");
    const file = tempFile("bad-docs.jsonl", lines);
    refused(() => loadDocuments(file), /bad-docs\.jsonl/, /5 problems|4 problems/, /item 1 \("a"\): ids must be unique: same id as item 0/,
      /item 2: id must be a non-empty string/, /item 3 \("c"\): title must be a non-empty string/, /item 4 \("d"\): body must be a string/);
  });

  it("names an unreadable file and a broken line", () => {
    assert.throws(() => loadDocuments("/no/such/kb.jsonl"), { code: "file_unreadable" });
    assert.throws(() => loadDocuments(tempFile("broken.jsonl", '{"id":"a","title":"A","body":""}\n{oops')), (e: unknown) => {
      assert.ok(e instanceof ToolsearchError && e.code === "file_parse" && /line 2/.test(e.message));
      return true;
    });
  });

  it("checks documents given in memory the same way", async () => {
    refused(() => checkDocuments([{ id: "x", title: "", body: "" }]), /title/);
    await assert.rejects(DocumentIndex.fromDocuments([{ id: 1, title: "T", body: "b" }, { id: "1", title: "U", body: "c" }]), { code: "documents_invalid" });
  });
});

describe("documents from a folder of Markdown", () => {
  it("takes id and title from front matter, else the path and first heading; stable across reloads", () => {
    const folder = fixture("documents", "markdown");
    const docs = loadDocuments(folder);
    assert.deepEqual(docs.map((d) => [d.id, d.title]), [
      ["guides/password", "Reset your password"],
      ["guides/sessions", "Live sessions"],
      ["kb-refunds", "Refund policy"],
    ]);
    assert.equal(docs[2].url, "https://help.example.com/refunds");
    assert.ok(docs[2].body.startsWith("# Getting your money back"), "the front matter is not part of the body");
    assert.deepEqual(loadDocuments(folder), docs);
  });

  it("refuses a file without a title, with broken front matter, or with a duplicate id, naming each file", () => {
    const folder = makeTempDir("toolsearch-md-");
    mkdirSync(join(folder, "sub"));
    writeFileSync(join(folder, "a.md"), "---\nid: same\ntitle: A\n---\ntext\n");
    writeFileSync(join(folder, "sub", "b.md"), "---\nid: same\ntitle: B\n---\ntext\n");
    writeFileSync(join(folder, "untitled.md"), "no heading here\n");
    writeFileSync(join(folder, "yaml.md"), "---\ntitle: [unclosed\n---\nbody\n");
    refused(() => loadDocuments(folder), /yaml\.md.*front matter is not valid YAML/);
    writeFileSync(join(folder, "yaml.md"), "---\ntitle: Fine\n---\nbody\n");
    refused(() => loadDocuments(folder), /sub\/b\.md: item \("same"\): ids must be unique: same id as .*a\.md/, /untitled\.md.*a title is required/);
  });

  it("refuses an empty folder and names an unreadable file", () => {
    const folder = makeTempDir("toolsearch-md-");
    refused(() => loadDocuments(folder), /no \.md or \.markdown files/);
    writeFileSync(join(folder, "fine.md"), "# Fine\n");
    // A dangling link cannot be read by anyone (root included, unlike a chmod 000 file).
    symlinkSync(join(folder, "missing-target.md"), join(folder, "dangling.md"));
    refused(() => loadDocuments(folder), /dangling\.md.*cannot read file/);
  });
});
