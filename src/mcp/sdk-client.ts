/** The MCP SDK's client side (loaded when a gateway first starts an upstream server); see sdk.ts for why it is here. */
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
export { createPrivateKeyJwtAuth } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
