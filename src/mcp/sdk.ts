/**
 * The MCP SDK's server side, as the gateway uses it, in one module. Every runtime import of the SDK in toolsearch goes
 * through this module, `sdk-client.ts` or `sdk-http.ts`, so that `npm run build` can replace their compiled forms by
 * one bundle of the SDK and its dependencies (scripts/bundle-sdk.ts): the same code in a few files instead of about
 * 900 (zod alone is 550), which takes a third off the gateway's launch (docs/benchmarks.md, "Launch time"). From the
 * sources (tests, tsx) they are plain re-exports of the SDK.
 */
export { Server } from "@modelcontextprotocol/sdk/server/index.js";
export { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
export { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
export {
  CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
export {
  CompleteRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema, LoggingMessageNotificationSchema, PromptListChangedNotificationSchema,
  ReadResourceRequestSchema, ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema,
  SubscribeRequestSchema, UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
export { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
