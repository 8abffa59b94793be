// The MCP SDK's own client, alone, as the conformance suite's client under test: the evidence that a scenario in
// scripts/conformance-baseline.yml fails for every client, not only for ours. Usage (from the repository root):
//   npx conformance client --command "node scripts/conformance-reference-client.mjs" --scenario tools_call
// It does what any MCP client does: initialize (then the notifications/initialized the lifecycle requires) and one
// tools/call on the same connection.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.argv[2];
if (!url) throw new Error("usage: conformance-reference-client.mjs SERVER_URL");
const client = new Client({ name: "sdk-reference-client", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const result = await client.callTool({ name: "add_numbers", arguments: { a: 2, b: 3 } });
console.log(JSON.stringify(result));
await client.close();
