/**
 * A knowledge base behind the gateway as MCP resources: every document listed as `toolsearch://docs/{collection}/{id}`
 * with a template, `search_docs` answers carrying `resource_link` blocks, and `resources/read` of such a link
 * returning the whole text (however long; `read_doc` is the paged way). Through the official SDK client.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { DocumentIndex } from "../../src/indexes/document-index.js";
import { docResourceUri, parseDocResourceUri } from "../../src/mcp/doc-resources.js";
import { Gateway } from "../../src/mcp/gateway.js";
import { connectInMemory, ROOT } from "./helpers.js";

describe("documents as resources", () => {
  let docs: DocumentIndex;
  let gateway: Gateway;
  let client: Client;

  before(async () => {
    docs = await DocumentIndex.fromFile(join(ROOT, "test/fixtures/documents/help-center.jsonl"));
    // One article far longer than a read_doc page, to show that a resource read is not paged.
    docs.add({ id: "kb/long article", title: "A long article", body: `# Long\n\n${"Refunds are processed in batches. ".repeat(600)}` });
    gateway = await Gateway.start({ docs, docsCollection: "help" });
    client = await connectInMemory(gateway);
  });
  after(async () => {
    await client.close();
    await gateway.close();
  });

  it("lists every document with its title, and one template", async () => {
    const { resources } = await client.listResources();
    assert.equal(resources.length, docs.size);
    const long = resources.find((r) => r.uri === docResourceUri("help", "kb/long article"))!;
    assert.equal(long.name, "A long article");
    assert.equal(long.mimeType, "text/markdown");
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ["toolsearch://docs/help/{id}"]);
  });

  it("search_docs answers carry resource links that resources/read resolves to the whole text", async () => {
    const result = await client.callTool({ name: "search_docs", arguments: { query: "refunds processed in batches", limit: 3 } });
    const links = (result.content as { type: string; uri?: string; name?: string }[]).filter((b) => b.type === "resource_link");
    assert.ok(links.length >= 1);
    assert.equal(links[0].uri, docResourceUri("help", "kb/long article"));
    const read = await client.readResource({ uri: links[0].uri! });
    const body = docs.get("kb/long article")!.body;
    assert.equal(read.contents.length, 1);
    assert.equal((read.contents[0] as { text: string }).text, body);
    assert.ok(body.length > 4000, "longer than one read_doc page");
  });

  it("an id round-trips through the URI, and an unknown one is 'resource not found'", async () => {
    assert.deepEqual(parseDocResourceUri(docResourceUri("help", "a/b c")), { collection: "help", id: "a/b c" });
    await assert.rejects(client.readResource({ uri: docResourceUri("help", "no-such-doc") }), (error: unknown) => error instanceof McpError && error.code === -32002 && /search_docs/.test(error.message));
  });
});
