import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DocumentIndex } from "../../src/indexes/document-index.js";
import {
  docsToolDefinitions, handleDocsTool, handleReadDoc, handleSearchDocs, type SearchResultBlock, type TextBlock,
} from "../../src/metatools/docs-tools.js";
import { fixture } from "../helpers/files.js";

const load = () => DocumentIndex.fromFile(fixture("documents", "help-center.jsonl"));

describe("search_docs and read_doc definitions", () => {
  it("are Anthropic-shape tools whose descriptions say what, when, what comes back and the limits", () => {
    const [search, read] = docsToolDefinitions({ about: "the GOCOURSE help center" });
    assert.equal(search.name, "search_docs");
    assert.equal(read.name, "read_doc");
    assert.match(search.name, /^[a-zA-Z0-9_-]{1,64}$/);
    assert.deepEqual(search.input_schema.required, ["query"]);
    assert.deepEqual(read.input_schema.required, ["id"]);
    assert.match(search.description!, /GOCOURSE help center/);
    assert.match(search.description!, /Use it before answering/);
    assert.match(search.description!, /up to 5 articles/);
    assert.match(search.description!, /read_doc/);
    assert.match(read.description!, /next_offset/);
    assert.match(read.description!, /unknown id is an error/i);
  });
});

describe("search_docs handler", () => {
  it("returns JSON previews by default", async () => {
    const result = await handleSearchDocs(await load(), { query: "refund" });
    assert.equal(result.isError, false);
    const hits = JSON.parse(result.content as string);
    assert.equal(hits[0].id, "kb-refunds");
    assert.deepEqual(Object.keys(hits[0]).sort(), ["id", "offset", "score", "snippet", "title", "url"]);
  });

  it("returns search_result blocks with citations enabled, and the ids to read", async () => {
    const result = await handleSearchDocs(await load(), { query: "certificate internship", limit: 2 }, { format: "search_result" });
    const [intro, ...blocks] = result.content as (TextBlock | SearchResultBlock)[];
    assert.equal(intro.type, "text");
    assert.match((intro as TextBlock).text, /kb-internship \(Free internship program\)/);
    assert.equal(blocks.length, 2);
    const first = blocks[0] as SearchResultBlock;
    assert.deepEqual(Object.keys(first).sort(), ["citations", "content", "source", "title", "type"]);
    assert.equal(first.type, "search_result");
    assert.equal(first.source, "kb-internship");
    assert.equal(first.title, "Free internship program");
    assert.deepEqual(first.citations, { enabled: true });
    assert.equal(first.content[0].type, "text");
    const refunds = await handleSearchDocs(await load(), { query: "refund" }, { format: "search_result" });
    assert.equal(((refunds.content as SearchResultBlock[])[1]).source, "https://help.example.com/refunds");
  });

  it("answers no match with guidance text, not []", async () => {
    const result = await handleSearchDocs(await load(), { query: "student discount" });
    assert.equal(result.isError, false);
    assert.equal(typeof result.content, "string");
    assert.notEqual(result.content, "[]");
    assert.match(result.content as string, /No articles match "student discount"/);
    assert.match(result.content as string, /different or fewer keywords/);
  });

  it("reports bad input as an error result the model can fix", async () => {
    const index = await load();
    assert.equal((await handleSearchDocs(index, {})).isError, true);
    assert.equal((await handleSearchDocs(index, { query: "x", limit: 99 })).isError, true);
    assert.equal(await handleDocsTool(index, "other_tool", {}), undefined);
  });
});

describe("read_doc handler", () => {
  it("returns a page as JSON, or as a citable search_result with a paging note", async () => {
    const index = await load();
    const page = JSON.parse((await handleDocsTool(index, "read_doc", { id: "kb-refunds" }))!.content as string);
    assert.equal(page.id, "kb-refunds");
    assert.equal(page.offset, 0);
    assert.equal(page.total_chars, page.text.length);
    const paged = handleReadDoc(index, { id: "kb-refunds", offset: 0 }, { format: "search_result", pageChars: 60 });
    const [block, note] = paged.content as [SearchResultBlock, TextBlock];
    assert.equal(block.type, "search_result");
    assert.ok(block.content[0].text.length <= 60);
    assert.match(note.text, /More follows: call read_doc with \{"id": "kb-refunds", "offset": \d+\}/);
  });

  it("answers an unknown id with an error that points back to search_docs and close ids", async () => {
    const result = handleReadDoc(await load(), { id: "kb-refund" });
    assert.equal(result.isError, true);
    assert.match(result.content as string, /Did you mean: kb-refunds/);
    assert.match(result.content as string, /search_docs/);
  });
});
