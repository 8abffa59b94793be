/** `toolsearch mcp` on the command line: usage and file errors before anything starts; documents served as tools. */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { run } from "../../src/cli/program.js";
import { DocumentIndex } from "../../src/indexes/document-index.js";
import { Gateway } from "../../src/mcp/gateway.js";
import { connectInMemory, ROOT, textOf } from "./helpers.js";
import { makeTempDir } from "../helpers/temp-dir.js";

/** Runs the CLI in-process with stderr captured. */
async function runCapturingStderr(argv: string[]): Promise<{ code: number; stderr: string }> {
  const write = process.stderr.write.bind(process.stderr);
  let stderr = "";
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
  try {
    return { code: await run(argv), stderr };
  } finally {
    process.stderr.write = write;
  }
}

describe("toolsearch mcp (command line)", () => {
  it("needs something to serve (usage error, exit 2)", async () => {
    const { code, stderr } = await runCapturingStderr(["mcp"]);
    assert.equal(code, 2);
    assert.match(stderr, /at least one of --config, --catalog or --docs/);
  });

  it("refuses a bad configuration before starting anything (exit 1, names server and field)", async () => {
    const dir = makeTempDir("toolsearch-mcp-cli-");
    const file = join(dir, "mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { fs: { command: "node", env: { DEBUG: true } } } }));
    const { code, stderr } = await runCapturingStderr(["mcp", "--config", file]);
    assert.equal(code, 1);
    assert.match(stderr, /mcp\.json: configuration refused/);
    assert.match(stderr, /server "fs": field "env\.DEBUG" must be string/);
  });

  it("refuses --token without --http", async () => {
    const { code } = await runCapturingStderr(["mcp", "--catalog", join(ROOT, "test/fixtures/mcp/catalog.json"), "--token", "x"]);
    assert.equal(code, 2);
  });
});

describe("gateway with a knowledge base", () => {
  it("adds search_docs and read_doc and answers them", async () => {
    const docs = await DocumentIndex.fromFile(join(ROOT, "test/fixtures/documents/help-center.jsonl"));
    const gateway = await Gateway.start({ docs });
    const client = await connectInMemory(gateway);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["search_tools", "describe_tool", "call_tool", "search_docs", "read_doc"]);
    const found = JSON.parse(textOf(await client.callTool({ name: "search_docs", arguments: { query: "refund", limit: 1 } })));
    assert.equal(found.length, 1);
    const page = JSON.parse(textOf(await client.callTool({ name: "read_doc", arguments: { id: found[0].id } })));
    assert.equal(page.id, found[0].id);
    assert.ok(page.text.length > 0);
    await client.close();
    await gateway.close();
  });
});
