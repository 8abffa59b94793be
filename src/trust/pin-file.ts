/**
 * `--pin-from FILE`: a reviewed set of upstream tool definitions to pin, as `{"<server>": [tool, …]}` with each tool in
 * MCP shape (`name`, `description`, `inputSchema`). A file that breaks the shape is refused whole, naming the server,
 * the position and the rule.
 */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { readJsonFile } from "../catalog/read-records.js";
import { type Problem, ToolsearchError } from "../errors.js";

/** Reads and checks a pin file. */
export function readPinFile(path: string): Record<string, McpTool[]> {
  return parsePins(readJsonFile(path), path);
}

/** Checks the shape of a pin set; throws `config_invalid` listing every problem. */
export function parsePins(value: unknown, source = "pins"): Record<string, McpTool[]> {
  const problems: Problem[] = [];
  const problem = (item: string, rule: string, message: string) => problems.push({ file: source, name: item, rule, message: `${item}: ${message}` });
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ToolsearchError("config_invalid", `${source}: a pin file is an object of servers, {"<server>": [tool, …]}`);
  }
  for (const [server, tools] of Object.entries(value)) {
    if (!Array.isArray(tools)) {
      problem(server, "tools", "must be an array of tool definitions");
      continue;
    }
    tools.forEach((tool: unknown, i) => {
      const t = tool as Record<string, unknown> | null;
      if (t === null || typeof t !== "object" || typeof t.name !== "string" || t.name === "") problem(`${server}[${i}]`, "name", "needs a non-empty string name");
      else if (t.description !== undefined && typeof t.description !== "string") problem(`${server}/${t.name}`, "description", "description must be a string");
      else if (t.inputSchema === null || typeof t.inputSchema !== "object" || Array.isArray(t.inputSchema)) problem(`${server}/${t.name}`, "inputSchema", "needs an inputSchema object");
    });
  }
  if (problems.length) throw new ToolsearchError("config_invalid", `${source}: ${problems.length} problem${problems.length === 1 ? "" : "s"}: ${problems.map((p) => p.message).join("; ")}`, { problems });
  return value as Record<string, McpTool[]>;
}
