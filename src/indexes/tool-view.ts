/**
 * A caller's view of a `ToolIndex`: the tools a `ToolVisibility` lets through, and nothing else. Every read (size,
 * names, describe, search, explain, suggestions, `unknown_tool` hints) answers as an index of the visible tools alone
 * would, so a caller cannot tell that a hidden tool exists (SPEC §16). The view holds no copy of the tools: it asks
 * the index, which keeps per-visibility statistics and refreshes them when it changes.
 *
 * @example
 * ```ts
 * const billing = new ToolView(index, { accept: (name) => name.startsWith("billing_") });
 * billing.searchSync("refund", { limit: 10 }); // ten billing tools, ranked as in a billing-only index
 * billing.describe("admin_delete_user"); // undefined, as for a tool that does not exist
 * ```
 */
import type { AnthropicTool, Tool } from "../catalog/tool.js";
import type { Explanation } from "./explain.js";
import type { ToolIndex } from "./tool-index.js";
import type { ToolHit, ToolSearchOptions, ToolVisibility } from "./tool-index-options.js";

/** What a tool catalog offers its readers; a `ToolIndex` (everything) and a `ToolView` (a caller's part) both do. */
export type ToolCatalog = Pick<ToolIndex, "size" | "names" | "get" | "list" | "describe" | "require" | "closestNames" | "search" | "searchSync" | "explain" | "suggest">;

export class ToolView implements ToolCatalog {
  constructor(
    readonly index: ToolIndex,
    readonly visible: ToolVisibility,
  ) {}

  get size(): number {
    return this.index.visibleCount(this.visible);
  }

  names(): string[] {
    return this.index.names().filter(this.visible.accept);
  }

  get(name: string): Tool | undefined {
    return this.visible.accept(name) ? this.index.get(name) : undefined;
  }

  list(): Tool[] {
    return this.index.list().filter((tool) => this.visible.accept(tool.name));
  }

  describe(name: string): AnthropicTool | undefined {
    return this.visible.accept(name) ? this.index.describe(name) : undefined;
  }

  require(name: string): Tool {
    return this.index.require(name, this.visible);
  }

  closestNames(name: string, max?: number): string[] {
    return this.index.closestNames(name, max, this.visible);
  }

  search(query: string, options: ToolSearchOptions = {}): Promise<ToolHit[]> {
    return this.index.search(query, { ...options, visible: this.visible });
  }

  searchSync(query: string, options: ToolSearchOptions = {}): ToolHit[] {
    return this.index.searchSync(query, { ...options, visible: this.visible });
  }

  explain(query: string, name: string, options: Omit<NonNullable<Parameters<ToolIndex["explain"]>[2]>, "visible"> = {}): Promise<Explanation> {
    return this.index.explain(query, name, { ...options, visible: this.visible });
  }

  suggest(query: string, max?: number): string[] {
    return this.index.suggest(query, max, this.visible);
  }
}
