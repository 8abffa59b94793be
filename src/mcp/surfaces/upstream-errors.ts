/**
 * How the surfaces beyond tools answer when a request cannot be served: JSON-RPC errors (a tool call reports errors
 * inside its result instead). An unknown name or URI is the client's mistake (`InvalidParams`, or the MCP
 * "resource not found" code); an upstream that is down or slow is reported with its reason, secrets masked.
 */
import { ToolsearchError } from "../../errors.js";
import { ErrorCode, McpError } from "../sdk.js";

/** MCP's code for `resources/read` of a URI no server has. */
export const RESOURCE_NOT_FOUND = -32002;

/** Runs an upstream request; a `ToolsearchError` (upstream unavailable or timed out) becomes a JSON-RPC error. */
export async function relay<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof ToolsearchError) throw new McpError(ErrorCode.InternalError, `${error.message} (${error.code})`);
    throw error;
  }
}

export function invalidParams(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}
