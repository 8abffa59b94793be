/**
 * Property tests of the document loader (records in memory, JSONL files, Markdown folders with front matter) and the
 * MCP configuration reader: any input is loaded whole or refused with a ToolsearchError and its code.
 */
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import { checkDocuments, loadDocuments } from "../../src/catalog/documents.js";
import { DocumentIndex } from "../../src/indexes/document-index.js";
import { isStdioConfig, loadGatewayConfig, parseGatewayConfig } from "../../src/mcp/config.js";
import { anyText, fuzzParameters, onlyCodedErrors, onlyCodedErrorsAsync, wordyText } from "./settings.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const dir = makeTempDir("toolsearch-fuzz-");
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const documentLike = fc.oneof(
  fc.record(
    {
      id: fc.oneof(fc.constantFrom("kb-1", "kb-2", " kb-3", ""), fc.integer(), fc.double(), anyText(6)),
      title: fc.oneof(wordyText(4), fc.constant("   "), fc.integer()),
      body: fc.oneof(wordyText(40), anyText(500), fc.constant(null)),
      url: fc.oneof(fc.constant("https://example.com/a"), fc.constant(null), fc.integer(), anyText(5)),
    },
    { requiredKeys: [] },
  ),
  fc.anything({ maxDepth: 2 }),
);

describe("document loader (property)", () => {
  it("accepts records whole and they index and search, or refuses them with documents_invalid", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(documentLike, { maxLength: 5 }), fc.oneof(wordyText(5), anyText(40)), async (items, query) => {
        const result = onlyCodedErrors(["documents_invalid"], () => checkDocuments(items, "fuzz"));
        if ("error" in result) return void assert.ok(result.error.problems.length > 0);
        assert.equal(result.value.length, items.length);
        const index = new DocumentIndex(result.value);
        const hits = await onlyCodedErrorsAsync([], () => index.search(query, { limit: 5 }));
        if ("value" in hits) for (const hit of hits.value) assert.ok(result.value.some((d) => d.id === hit.id));
      }),
      fuzzParameters(),
    );
  });

  it("reads any JSONL text, or refuses it with file_parse / documents_invalid", () => {
    const text = fc.oneof(anyText(300), fc.array(documentLike, { maxLength: 4 }).map((docs) => docs.map((d) => JSON.stringify(d) ?? "").join("\n")));
    fc.assert(
      fc.property(text, (content) => {
        const path = join(dir, `docs-${files++}.jsonl`);
        writeFileSync(path, content);
        onlyCodedErrors(["file_parse", "documents_invalid"], () => loadDocuments(path));
      }),
      fuzzParameters(),
    );
  });

  it("reads any Markdown folder (front matter or not), or refuses it with documents_invalid", () => {
    const frontMatter = fc.oneof(
      fc.constant(""),
      fc.record({ id: fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), title: wordyText(3) }, { requiredKeys: [] }).map((m) => `---\n${Object.entries(m).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join("\n")}\n---\n`),
      anyText(40).map((yaml) => `---\n${yaml}\n---\n`),
    );
    const page = fc.tuple(frontMatter, fc.oneof(fc.constant(""), wordyText(3).map((t) => `# ${t}\n`)), fc.oneof(wordyText(20), anyText(200))).map((parts) => parts.join(""));
    fc.assert(
      fc.property(fc.array(page, { minLength: 0, maxLength: 3 }), (pages) => {
        const folder = join(dir, `md-${files++}`);
        mkdirSync(folder);
        pages.forEach((text, i) => writeFileSync(join(folder, `page-${i}.md`), text));
        const result = onlyCodedErrors(["documents_invalid"], () => loadDocuments(folder));
        if ("value" in result) assert.equal(result.value.length, pages.length);
      }),
      fuzzParameters(),
    );
  });
});

const serverLike = fc.oneof(
  fc.record(
    {
      command: fc.oneof(fc.constantFrom("node", "npx", ""), fc.integer(), anyText(5)),
      args: fc.oneof(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), fc.string(), fc.array(fc.integer(), { maxLength: 2 })),
      env: fc.oneof(fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }), fc.array(fc.string(), { maxLength: 2 })),
      url: fc.oneof(fc.constantFrom("http://127.0.0.1:3001/mcp", "not a url", ""), fc.integer()),
      headers: fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string({ maxLength: 4 }), fc.integer()), { maxKeys: 2 }),
      type: fc.constantFrom("stdio", "http", "sse", "other"),
      disabled: fc.oneof(fc.boolean(), fc.string()),
    },
    { requiredKeys: [] },
  ),
  fc.anything({ maxDepth: 2 }),
);
const serverName = fc.oneof(fc.constantFrom("files", "memory", "a.b-c_d", "", "has space", "x".repeat(65), "__proto__"), fc.string({ maxLength: 8 }));
const configLike = fc.oneof(
  fc.record({ mcpServers: fc.dictionary(serverName, serverLike, { maxKeys: 3 }) }, { requiredKeys: ["mcpServers"] }),
  fc.record({ mcpServers: fc.anything({ maxDepth: 2 }) }, { requiredKeys: [] }),
  fc.jsonValue({ maxDepth: 3 }),
);

describe("MCP configuration reader (property)", () => {
  it("accepts a configuration whose every server has a command or a URL, or refuses it with config_invalid", () => {
    fc.assert(
      fc.property(configLike, (value) => {
        const result = onlyCodedErrors(["config_invalid"], () => parseGatewayConfig(value, "fuzz.json"));
        if ("error" in result) return;
        for (const server of Object.values(result.value.mcpServers)) {
          if (isStdioConfig(server)) assert.equal(typeof server.command, "string");
          else assert.equal(typeof server.url, "string");
        }
      }),
      fuzzParameters(),
    );
  });

  it("reads any file text, or refuses it with file_parse / config_invalid", () => {
    fc.assert(
      fc.property(fc.oneof(anyText(200), configLike.map((c) => JSON.stringify(c) ?? "")), (content) => {
        const path = join(dir, `gateway-${files++}.json`);
        writeFileSync(path, content);
        onlyCodedErrors(["file_parse", "config_invalid"], () => loadGatewayConfig(path));
      }),
      fuzzParameters(),
    );
  });
});
