/** The MCP SDK's Streamable HTTP server transport (loaded by `--http` and the service); see sdk.ts for why it is here. */
export { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
