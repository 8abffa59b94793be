import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { DocumentIndex } from "../../src/indexes/document-index.js";
import { ToolsearchError } from "../../src/errors.js";
import { fixture } from "../helpers/files.js";

const helpCenter = fixture("documents", "help-center.jsonl");

async function ids(index: DocumentIndex, query: string, limit = 5): Promise<string[]> {
  return (await index.search(query, { limit })).map((h) => h.id);
}

describe("DocumentIndex: the help-center scenario", () => {
  it("ranks kb-refunds first for a refund question", async () => {
    const index = await DocumentIndex.fromFile(helpCenter);
    assert.equal((await ids(index, "How do I get a refund?"))[0], "kb-refunds");
  });

  it("ranks kb-internship, then kb-certificates, for a certificate after the internship", async () => {
    const index = await DocumentIndex.fromFile(helpCenter);
    assert.deepEqual((await ids(index, "Do I get a certificate after the internship?")).slice(0, 2), ["kb-internship", "kb-certificates"]);
  });

  it("ranks kb-live-sessions first for live session recordings", async () => {
    const index = await DocumentIndex.fromFile(helpCenter);
    assert.equal((await ids(index, "live session recordings"))[0], "kb-live-sessions");
  });

  it("finds an article added later, and forgets a removed one", async () => {
    const index = await DocumentIndex.fromFile(helpCenter);
    assert.deepEqual(await ids(index, "student discount"), []);
    index.add({ id: "kb-discounts", title: "Course discounts", body: "Students pay half price with a valid student card." });
    assert.equal((await ids(index, "student discount"))[0], "kb-discounts");
    assert.throws(() => index.add({ id: "kb-discounts", title: "Again", body: "" }), { code: "documents_invalid" });
    index.replace({ id: "kb-discounts", title: "Seasonal offers", body: "Prices drop every December." });
    assert.deepEqual(await ids(index, "student discount"), []);
    assert.equal(index.remove("kb-discounts"), true);
    assert.equal(index.remove("kb-discounts"), false);
    assert.deepEqual(await ids(index, "december"), []);
    assert.equal(index.size, 5);
  });

  it("returns SPEC §7 hits: id, title, score, snippet (plus offset and url)", async () => {
    const index = await DocumentIndex.fromFile(helpCenter);
    const [hit] = await index.search("refund", { limit: 1 });
    assert.equal(hit.id, "kb-refunds");
    assert.equal(hit.title, "Refund policy");
    assert.equal(hit.url, "https://help.example.com/refunds");
    assert.ok(hit.score > 0);
    assert.ok(hit.snippet.length > 0 && hit.snippet.length <= 240);
    assert.equal(typeof hit.offset, "number");
  });

  it("breaks ties by id and validates limit and engine", async () => {
    const index = await DocumentIndex.fromDocuments([
      { id: "b", title: "Same", body: "same words" },
      { id: "a", title: "Same", body: "same words" },
    ]);
    assert.deepEqual(await ids(index, "same words"), ["a", "b"]);
    await assert.rejects(index.search("x", { limit: 0 }), { code: "invalid_option" });
    await assert.rejects(index.search("x", { engine: "nope" as "bm25" }), { code: "unknown_engine" });
  });
});

describe("DocumentIndex: long documents", () => {
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `Paragraph ${i} talks about shipping, packaging and delivery times in general terms.`).join("\n\n");

  it("finds a match deep inside a long body and starts the snippet near it", async () => {
    const body = `${filler(80)}\n\nIf a parcel arrives damaged, photograph the broken seal before you open it and send us the pictures.\n\n${filler(20)}`;
    const index = await DocumentIndex.fromDocuments([
      { id: "shipping", title: "Shipping handbook", body },
      { id: "other", title: "Returns", body: "Send items back within a month." },
    ]);
    const [hit] = await index.search("broken seal photograph");
    assert.equal(hit.id, "shipping");
    assert.ok(hit.snippet.startsWith("…"), hit.snippet);
    assert.match(hit.snippet, /photograph the broken seal/);
    assert.ok(hit.snippet.length <= 240);
    const at = body.indexOf("If a parcel arrives damaged");
    assert.equal(hit.offset, at);
    assert.ok(index.read("shipping", { offset: hit.offset, maxChars: 200 }).text.startsWith("If a parcel arrives damaged"));
  });

  it("pages a 200 KB document end to end, never splitting a surrogate pair", async () => {
    const words = ["alpha", "beta", "gamma", "😀", "delta", "épsilon", "🎉🎉", "zeta"];
    let body = "";
    for (let i = 0; body.length < 200_000; i++) body += words[i % words.length] + (i % 17 === 0 ? "\n\n" : i % 23 === 0 ? "😀" : " ");
    const index = await DocumentIndex.fromDocuments([{ id: "big", title: "A big one", body }]);
    const pages: string[] = [];
    let offset = 0;
    for (let guard = 0; guard < 1000; guard++) {
      const page = index.read("big", { offset, maxChars: 3001 });
      assert.equal(page.offset, offset);
      assert.equal(page.total_chars, body.length);
      assert.ok(page.text.length <= 3001 && page.text.length > 0);
      assert.ok(!/[\uD800-\uDBFF]$/.test(page.text) && !/^[\uDC00-\uDFFF]/.test(page.text), "a surrogate pair was split");
      pages.push(page.text);
      if (page.next_offset === undefined) break;
      assert.equal(page.next_offset, offset + page.text.length);
      offset = page.next_offset;
    }
    assert.equal(pages.join(""), body);
    assert.ok(pages.length >= 67);
    assert.equal(index.read("big", { offset: body.length }).text, "");
    assert.throws(() => index.read("big", { offset: body.length + 1 }), { code: "invalid_option" });
    assert.throws(() => index.read("big", { maxChars: 0 }), { code: "invalid_option" });
  });
});

describe("DocumentIndex: read", () => {
  it("reads a whole short document", async () => {
    const index = await DocumentIndex.fromFile(helpCenter);
    const page = index.read("kb-password");
    assert.equal(page.title, "Reset your password");
    assert.equal(page.offset, 0);
    assert.equal(page.total_chars, page.text.length);
    assert.equal(page.next_offset, undefined);
  });

  it("fails on an unknown id with guidance back to search and close ids", async () => {
    const index = await DocumentIndex.fromFile(helpCenter);
    assert.throws(() => index.read("kb-refund"), (error: unknown) => {
      assert.ok(error instanceof ToolsearchError);
      assert.equal(error.code, "unknown_document");
      assert.match(error.message, /Unknown document id "kb-refund"/);
      assert.match(error.message, /search/i);
      assert.deepEqual((error.details.suggestions as string[])[0], "kb-refunds");
      return true;
    });
  });
});

describe("DocumentIndex snapshots", () => {
  const queries = ["refund a payment", "reset my password", "shipping", "refnud", "cancel subscription"];
  const answers = (index: DocumentIndex) => queries.map((q) => index.searchSync(q, { limit: 5 }));

  it("a loaded snapshot answers searches, reads and suggestions exactly as the index it came from, and stays editable", async () => {
    const built = await DocumentIndex.fromFile(helpCenter);
    const loaded = DocumentIndex.fromSnapshot(built.snapshot());
    assert.deepEqual(answers(loaded), answers(built));
    assert.deepEqual(loaded.ids(), built.ids());
    assert.equal(loaded.passageCount, built.passageCount);
    const id = built.ids()[0];
    assert.deepEqual(loaded.read(id, { offset: 5, maxChars: 120 }), built.read(id, { offset: 5, maxChars: 120 }));
    assert.deepEqual(loaded.suggest("refnd"), built.suggest("refnd"));
    for (const index of [built, loaded]) {
      index.replace({ id: "kb-new", title: "Zebra crossings", body: "Where the zebra crossings are painted." });
      index.remove(id);
    }
    assert.deepEqual(answers(loaded), answers(built));
    assert.equal(loaded.searchSync("zebra", { limit: 1 })[0].id, "kb-new");
  });

  it("refuses a snapshot cut into other passages, of a tool index, or damaged (snapshot_invalid)", async () => {
    const built = await DocumentIndex.fromFile(helpCenter);
    const bytes = built.snapshot();
    const code = (f: () => unknown) => assert.throws(f, (e: unknown) => e instanceof ToolsearchError && e.code === "snapshot_invalid");
    code(() => DocumentIndex.fromSnapshot(bytes, { passages: { maxChars: 300 } }));
    code(() => DocumentIndex.fromSnapshot(bytes.subarray(0, bytes.length >> 1)));
    const { ToolIndex } = await import("../../src/indexes/tool-index.js");
    code(() => DocumentIndex.fromSnapshot(new ToolIndex([]).snapshot()));
  });

  it("keeps texts in string sections, byte for byte: non-ASCII and astral text, urls, a document made in place", async () => {
    const docs = [
      { id: "é-1", title: "Café crème", body: `Ünïcödé ${"𝔘𝔫𝔦".repeat(50)} text. `.repeat(40), url: "https://example.test/é" },
      { id: "plain", title: "Plain", body: "ascii only ".repeat(300) },
      { id: "日本", title: "東京の天気", body: "今日は晴れです。".repeat(200) },
    ];
    const built = await DocumentIndex.fromDocuments(docs);
    const loaded = DocumentIndex.fromSnapshot(built.snapshot());
    for (const doc of docs) assert.deepEqual(loaded.get(doc.id), built.get(doc.id));
    assert.deepEqual(loaded.searchSync("crème", { limit: 3 }), built.searchSync("crème", { limit: 3 }));
    assert.deepEqual(loaded.read("日本", { offset: 7, maxChars: 50 }), built.read("日本", { offset: 7, maxChars: 50 }));
    // A snapshot of a loaded index (its documents partly read) equals one of the index it came from.
    assert.deepEqual(DocumentIndex.fromSnapshot(loaded.snapshot()).get("plain"), built.get("plain"));
    assert.deepEqual(loaded.snapshot(), built.snapshot());
  });

  it("refuses an earlier release's snapshot (documents in its header) and a damaged string section (snapshot_invalid)", async () => {
    const old = readFileSync(fixture("snapshots", "help-center-docs.format1.snap"));
    assert.throws(() => DocumentIndex.fromSnapshot(old), (e: unknown) => e instanceof ToolsearchError && e.code === "snapshot_invalid" && /earlier release/.test(e.message));
    const bytes = (await DocumentIndex.fromFile(helpCenter)).snapshot();
    const length = bytes.readUInt32LE(8);
    const header = JSON.parse(bytes.toString("utf8", 12, 12 + length)) as { sections: Record<string, { offset: number }> };
    const damaged = Buffer.from(bytes);
    // The first string end of the bodies, past the end of the section.
    damaged.writeInt32LE(0x7fffffff, Math.ceil((12 + length) / 4) * 4 + header.sections.docBodies!.offset + 4);
    assert.throws(() => DocumentIndex.fromSnapshot(damaged), (e: unknown) => e instanceof ToolsearchError && e.code === "snapshot_invalid" && /string section docBodies is damaged/.test(e.message));
  });

  it("counts the bytes it holds: more documents, more bytes", async () => {
    const index = await DocumentIndex.fromFile(helpCenter);
    const before = index.memoryBytes();
    assert.ok(before > 0);
    index.add({ id: "kb-long", title: "A long one", body: "word ".repeat(5000) });
    assert.ok(index.memoryBytes() > before + 10_000);
  });
});
