/**
 * toolsearch: search, then load. The public API.
 *
 * @example
 * ```ts
 * import { ToolIndex } from "toolsearch";
 * const tools = await ToolIndex.fromFile("catalog.json");
 * const hits = await tools.search("check stock", { engine: "bm25", limit: 5 });
 * ```
 */
export { ToolIndex, checkLimit } from "./indexes/tool-index.js";
export type { ToolEngine, ToolHit, ToolIndexOptions, ToolSearchOptions, ToolBm25Options, FieldWeight } from "./indexes/tool-index-options.js";
export { DEFAULT_TOOL_BM25 } from "./indexes/tool-index-options.js";
export { LearnedSignal, type LearnedOptions, type UsagePair } from "./usage/learned.js";
export { replayHistory } from "./usage/replay.js";
export { learnedFromEvents } from "./usage/events.js";
export { checkRules, checkSynonyms, type PinRule, type Rules, type Synonyms } from "./usage/curation.js";
export type { AnthropicTool, JsonSchema, Tool, ToolShape } from "./catalog/tool.js";
export { loadCatalogFile, normalizeTools } from "./catalog/load.js";
export { toMcp, toOpenAiChat } from "./catalog/shapes.js";
export { TOOL_NAME_PATTERN } from "./catalog/validate.js";
export { ErrorCodes, ToolsearchError } from "./errors.js";
export type { ErrorCode, Problem } from "./errors.js";
export { type Analyzer, type AnalyzerOptions, createAnalyzer } from "./text/analyzer.js";
export { Bm25fIndex, type Bm25fOptions, type FieldOptions } from "./engines/bm25f.js";
export { RegexIndex, compilePattern, MAX_PATTERN_LENGTH } from "./engines/regex.js";
export { type Ranked, topK } from "./engines/top-k.js";
export { evaluate, type EvalReport, type EngineReport, type Searcher } from "./eval/runner.js";
export { loadQueries, type LabelledQuery } from "./eval/queries.js";
export { DocumentIndex } from "./indexes/document-index.js";
export type {
  DocumentBm25Options, DocumentEngine, DocumentHit, DocumentIndexOptions, DocumentPage, DocumentSearchOptions,
  PassageScoring, ReadOptions,
} from "./indexes/document-index-options.js";
export { DEFAULT_DOCUMENT_BM25, DEFAULT_PASSAGE_SCORING, DOCUMENT_ENGINES } from "./indexes/document-index-options.js";
export { type Document, checkDocuments, loadDocuments } from "./catalog/documents.js";
export { type Passage, type PassageOptions, splitPassages } from "./text/passages.js";
export { makeSnippet, type Snippet, type SnippetOptions } from "./text/snippet.js";
export {
  docsToolDefinitions, handleDocsTool, handleReadDoc, handleSearchDocs, noMatchGuidance, READ_DOC, SEARCH_DOCS,
  type DocsResultFormat, type DocsToolResult, type DocsToolsOptions, type SearchResultBlock, type TextBlock,
} from "./metatools/docs-tools.js";
export { LINT_RULES, lintFile, lintTools, selectRules, scoreTools, countByRule, SEVERITY_PENALTY, type LintOptions, type LintReport } from "./lint/runner.js";
export type { Finding, LintRule, LintTool, LintParam, Severity } from "./lint/types.js";
export { Gateway, type GatewayOptions } from "./mcp/gateway.js";
export { loadGatewayConfig, parseGatewayConfig, type GatewayConfig, type HttpServerConfig, type ServerConfig, type StdioServerConfig } from "./mcp/config.js";
export { serveHttp, serveStdio, type HttpEndpoint, type HttpServeOptions } from "./mcp/transports.js";
export { namespacedName } from "./mcp/names.js";
export type { UpstreamOptions } from "./mcp/upstream.js";
export type { EmbeddingProvider, EmbedProgress } from "./embeddings/provider.js";
export { Embedder, type EmbedderOptions } from "./embeddings/embedder.js";
export { EmbeddingCache, DEFAULT_CACHE_PATH, type EmbeddingCacheOptions } from "./embeddings/cache.js";
export { UseLiteProvider, type UseLiteOptions } from "./embeddings/use-lite.js";
export { OnnxEmbeddingProvider, type OnnxEmbeddingOptions } from "./embeddings/onnx.js";
export { HttpEmbeddingProvider, type HttpEmbeddingOptions } from "./embeddings/http.js";
export { providerFromSpec } from "./embeddings/from-spec.js";
export { toolEmbeddingText, documentEmbeddingText, type ToolTextRecipe } from "./embeddings/texts.js";
export { VectorIndex, type VectorIndexOptions } from "./engines/vector.js";
export { fuse, DEFAULT_FUSION, type FusionOptions, type FusionInput } from "./engines/fusion.js";
export { catalogFromOpenApi, type OpenApiCatalog, type OpenApiImportOptions, type OpenApiTool, type SkippedOperation } from "./openapi/catalog.js";
export { OpenApiClient, httpErrorMessage, type HttpCallResult, type OpenApiClientOptions } from "./openapi/call.js";
export { resolveAuth, type OpenApiAuth } from "./openapi/auth.js";
export { loadOpenApi, type OpenApiDocument } from "./openapi/load.js";
export { DEFAULT_DESCRIPTION_RECIPE, type DescriptionRecipe } from "./openapi/text.js";
export type { OperationPlan, Placement, BodyPlan } from "./openapi/operations.js";
export type { OpenApiSourceConfig } from "./openapi/config.js";
export { NameRegistry } from "./openapi/names.js";
export { configHash } from "./mcp/config.js";
export { GATEWAY_OWNER, type ManifestStore } from "./mcp/manifests.js";
export { CLIENTS as MCP_CLIENTS, importClientConfig, registrationEntry, type ImportResult } from "./mcp/import.js";
export type { Explanation, ExplainOptions, ExplainedTerm, ExplainedField, ExplainedPart, ExplainedSimilarity, Outranking } from "./indexes/explain.js";
export { fuseParts, type FusedHit } from "./engines/fusion.js";
export { SqliteStore, type SqliteStoreOptions } from "./store/sqlite.js";
export { openStore, defaultStorePath, toolsearchHome } from "./store/open.js";
export type { Store, VectorStore, CollectionKind, CollectionRecord, ItemRecord, ItemInput, Change, WriteOptions, ApiKeyRecord, ManifestRecord, Scope } from "./store/types.js";
export { type VectorCache } from "./embeddings/embedder.js";
export { PLAIN_TOOL_BM25 } from "./indexes/tool-index-options.js";
export { PLAIN_DOCUMENT_BM25 } from "./indexes/document-index-options.js";
export type { FusionFunction } from "./engines/fusion.js";
