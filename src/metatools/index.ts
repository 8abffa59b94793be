/** The meta-tools an agent sees, shape-neutral: definitions (Anthropic shape) and handlers. */
export {
  toolSearchDefinition, handleToolSearch, toolSearchTool, noToolGuidance, TOOL_SEARCH, DEFAULT_SEARCH_RESULTS, MAX_SEARCH_RESULTS,
  type ToolSearchEngine, type ToolSearchToolOptions,
} from "./tool-search.js";
export { describeToolDefinition, handleDescribeTool, describeToolTool, DESCRIBE_TOOL } from "./describe-tool.js";
export { buildToolDirectory, type ToolDirectoryOptions } from "./directory.js";
export {
  docsToolDefinitions, handleDocsTool, handleSearchDocs, handleReadDoc, searchDocsDefinition, readDocDefinition, SEARCH_DOCS, READ_DOC,
  type DocsToolsOptions, type DocsToolResult, type DocsResultFormat,
} from "./docs-tools.js";
export {
  referencedTools, textBlock, toolReference,
  type MetaTool, type MetaToolKind, type MetaToolResult, type ResultBlock, type SearchResultBlock, type TextBlock, type ToolReferenceBlock,
} from "./types.js";
export { parseSelect, resolveSelect, unknownNamesNote, MAX_SELECT_NAMES, type Selection } from "./select.js";
