/**
 * A client reading an upstream's resource and getting its prompt through the gateway (README, "MCP gateway"):
 * `node --import tsx examples/mcp-resources-prompts.ts`. It starts `toolsearch mcp` over stdio in front of the
 * reference server-everything (from node_modules, so no download), with a throwaway store for manifests.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
const dir = mkdtempSync(join(tmpdir(), "toolsearch-example-"));
writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything] } } }));

const client = new Client({ name: "example", version: "1.0.0" });
await client.connect(new StdioClientTransport({
  command: process.execPath,
  args: ["--import", "tsx", join(root, "src/cli/main.ts"), "mcp", "--config", join(dir, "mcp.json"), "--store", join(dir, "store.sqlite")],
  cwd: root,
}));
try {
  const { resources } = await client.listResources(); // URIs as the upstream wrote them
  console.log(resources.slice(0, 3).map((r) => `${r.uri}  (${r.name})`).join("\n"));
  const read = await client.readResource({ uri: resources[0].uri });
  const first = read.contents[0];
  console.log(`read ${first.uri}: ${"text" in first ? first.text.slice(0, 80) : `${first.mimeType} blob`}`);
  const { prompts } = await client.listPrompts(); // names prefixed like tools: everything__simple-prompt
  console.log(prompts.map((p) => p.name).join(", "));
  const prompt = await client.getPrompt({ name: "everything__args-prompt", arguments: { city: "Lisbon" } });
  console.log(JSON.stringify(prompt.messages[0].content));
} finally {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
}
