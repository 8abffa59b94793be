/**
 * `toolsearch/ai-sdk`: our engines behind the Vercel AI SDK's `toolSearch()`, and catalogs as deferred AI SDK tools.
 * Needs the `ai` package (an optional peer dependency); no other toolsearch entry point imports it.
 *
 * @example
 * ```ts
 * import { generateText, isStepCount } from "ai";
 * import { ToolIndex } from "toolsearch";
 * import { catalogTools, indexedToolSearch } from "toolsearch/ai-sdk";
 * const catalog = await ToolIndex.fromFile("catalog.json");
 * await generateText({ model, tools: { search: indexedToolSearch({ index: catalog }), ...catalogTools(catalog, { handlers }) }, stopWhen: isStepCount(5), prompt: "…" });
 * ```
 */
export {
  catalogTools, indexedToolSearch, toolSearchCallback,
  type AiSdkSearchOptions, type AiSdkSearchRequest, type CatalogToolsOptions, type IndexedToolSearchOptions,
} from "./agents/ai-sdk.js";
export { parseSelect, resolveSelect, type Selection } from "./metatools/select.js";
