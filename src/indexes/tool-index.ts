/**
 * `ToolIndex`: a searchable tool catalog. Tools are loaded and validated (catalog/), their texts analyzed (text/),
 * indexed by the BM25F and regex engines (engines/), and hits shaped into results.
 *
 * @example
 * ```ts
 * const tools = await ToolIndex.fromFile("catalog.json");
 * const hits = await tools.search("weather in Paris", { limit: 3 }); // [{ name: "get_weather", score, description }]
 * tools.describe("get_weather"); // { name, description, input_schema } exactly as given
 * ```
 */
import { loadCatalogFile, normalizeTools } from "../catalog/load.js";
import type { AnthropicTool, Tool } from "../catalog/tool.js";
import { checkItem } from "../catalog/validate.js";
import type { Embedder } from "../embeddings/embedder.js";
import type { EmbedProgress } from "../embeddings/provider.js";
import { HYBRID_CANDIDATES, needsAsync, querySentences, SemanticStore, type VectorState } from "../embeddings/semantic-store.js";
import { toolEmbeddingText } from "../embeddings/texts.js";
import { describeLocation, ToolsearchError, unknownName } from "../errors.js";
import { Bm25fIndex, type Bm25fOptions } from "../engines/bm25f.js";
import { RegexIndex } from "../engines/regex.js";
import type { Ranked } from "../engines/top-k.js";
import { type Analyzer, createAnalyzer } from "../text/analyzer.js";
import { closestNames } from "../text/suggest.js";
import { truncateAtWord } from "../text/truncate.js";
import {
  type Explanation, type ExplainOptions, explainedFields, explainedParts, explainedSimilarity, explainedTerms,
  NOT_A_HYBRID_CANDIDATE, placeIn,
} from "./explain.js";
import { analyzerSettings, bm25State, checkAnalyzer, decodeSnapshot, encodeSnapshot, invalid, savedVectors } from "./snapshot.js";
import { REGEX_FIELD_NAMES, regexFields, TOOL_FIELDS, toolTexts } from "./tool-fields.js";
import {
  DEFAULT_LIMIT, DEFAULT_TOOL_BM25, DESCRIPTION_PREVIEW_CHARS, MAX_LIMIT,
  TOOL_ENGINES, type ToolEngine, type ToolHit, type ToolIndexOptions, type ToolSearchOptions,
} from "./tool-index-options.js";

export class ToolIndex {
  readonly analyzer: Analyzer;
  private readonly tools = new Map<string, Tool>();
  private bm25: Bm25fIndex;
  private readonly bm25Options: Bm25fOptions;
  private readonly options: ToolIndexOptions;
  private readonly regex = new RegexIndex(3);
  /** Vectors for the `semantic` and `hybrid` engines, made on first use. */
  private readonly semantic: SemanticStore;
  private readonly embeddingText: ToolIndexOptions["embeddingText"];
  /**
   * Set on an index loaded from a snapshot until first needed: the regex texts and embedding texts of its tools are
   * made then (with the saved vectors), so that a BM25-only service pays nothing for them at start.
   */
  private deferred: { vectors?: VectorState } | undefined;
  /** Whether every field goes into one bag (plain BM25) rather than its own BM25F field. */
  private readonly bag: boolean;

  constructor(tools: Tool[] = [], options: ToolIndexOptions = {}) {
    this.analyzer = createAnalyzer(options.analyzer);
    this.semantic = new SemanticStore(options.embedder, options.fusion);
    this.embeddingText = options.embeddingText;
    this.options = options;
    const bm25 = options.bm25 ?? {};
    this.bag = bm25.bag !== undefined;
    this.bm25Options = {
      k1: bm25.k1 ?? DEFAULT_TOOL_BM25.k1,
      fields: bm25.bag
        ? [{ name: "all", weight: 1, b: bm25.bag.b }]
        : TOOL_FIELDS.map((name) => ({ name, ...DEFAULT_TOOL_BM25.fields[name], ...bm25.fields?.[name] })),
      fuzzy: bm25.fuzzy,
    };
    this.bm25 = new Bm25fIndex(this.bm25Options);
    for (const tool of tools) this.index(tool);
  }

  /**
   * The built index as bytes: tools, BM25 postings and any vectors made so far. `ToolIndex.fromSnapshot` loads it
   * without analyzing a text or calling the embedder, several times faster than a rebuild (docs/benchmarks.md,
   * "Scale"). Keep it beside the catalog it came from and rebuild when the catalog changes.
   *
   * @example
   * ```ts
   * writeFileSync("catalog.snapshot", tools.snapshot());
   * const again = ToolIndex.fromSnapshot(readFileSync("catalog.snapshot"));
   * ```
   */
  snapshot(): Buffer {
    this.undefer();
    const state = this.bm25.exportState();
    const vectors = this.semantic.exportVectors();
    const header = {
      kind: "tools",
      analyzer: analyzerSettings(this.options.analyzer),
      bag: this.bag,
      tools: [...this.tools.values()].map(storedTool),
      bm25: { ids: state.ids, terms: state.terms },
      vectors: vectors && { embedder: vectors.embedder, dimensions: vectors.dimensions, ids: vectors.ids, texts: vectors.texts },
    };
    return encodeSnapshot(header, { lengths: state.lengths, offsets: state.offsets, slots: state.slots, tfs: state.tfs, vectors: vectors?.vectors });
  }

  /**
   * Loads a `snapshot()`. `options` are those of the constructor: BM25 weights, fusion and the embedder may differ from
   * the saved index's, the analyzer and `bm25.bag` may not (`snapshot_invalid`). Saved vectors are used when they
   * come from the same embedding provider.
   */
  static fromSnapshot(snapshot: Uint8Array, options: ToolIndexOptions = {}): ToolIndex {
    const index = new ToolIndex([], options);
    index.loadSnapshot(snapshot);
    return index;
  }

  /**
   * Fills this empty index from a `snapshot()`, keeping this index's options (as `fromSnapshot` does with the options
   * it is given). Throws `snapshot_invalid` and leaves the index empty when the snapshot does not fit them.
   */
  loadSnapshot(snapshot: Uint8Array): void {
    if (this.tools.size) throw invalid("the index it would be loaded into is not empty");
    const { header, sections } = decodeSnapshot(snapshot, "tools");
    checkAnalyzer(header.analyzer, analyzerSettings(this.options.analyzer));
    if (header.bag !== this.bag) throw invalid(`it was built ${header.bag ? "with" : "without"} bm25.bag, these options ${this.bag ? "have" : "do not have"} it`);
    try {
      this.bm25 = Bm25fIndex.fromState(this.bm25Options, bm25State(header, sections));
    } catch (error) {
      throw error instanceof ToolsearchError ? error : invalid((error as Error).message);
    }
    for (const stored of header.tools as StoredTool[]) this.restore(stored);
    this.deferred = { vectors: savedVectors(header, sections) };
  }

  /** Makes what a restored index deferred (see `deferred`); a no-op once done or for a built index. */
  private undefer(): void {
    if (!this.deferred) return;
    const { vectors } = this.deferred;
    this.deferred = undefined;
    for (const tool of this.tools.values()) {
      this.regex.add({ id: tool.name, fields: regexFields(tool, toolTexts(tool)) });
      this.semantic.set(tool.name, toolEmbeddingText(tool, this.embeddingText));
    }
    if (vectors) this.semantic.importVectors(vectors);
  }

  /** Loads a catalog file (JSON, `{tools:[…]}`, JSONL or YAML; any tool shape). Refuses a bad file whole. */
  static async fromFile(path: string, options?: ToolIndexOptions): Promise<ToolIndex> {
    return new ToolIndex(loadCatalogFile(path), options);
  }

  /** Builds an index from tools in any supported shape, validated as a catalog file would be. */
  static async fromTools(tools: unknown[], options?: ToolIndexOptions): Promise<ToolIndex> {
    return new ToolIndex(normalizeTools(tools), options);
  }

  /**
   * Bytes this index holds in memory, roughly: its BM25 postings (`Bm25fIndex.memoryBytes`) and its tools, each
   * counted as twice the length of its definition as JSON (objects cost about that much more than their text). Used
   * to keep a service's loaded collections within a memory budget.
   */
  memoryBytes(): number {
    let bytes = this.bm25.memoryBytes();
    for (const tool of this.tools.values()) bytes += 2 * JSON.stringify(tool.definition).length + 2 * tool.description.length + 256;
    return bytes;
  }

  /** Number of tools. */
  get size(): number {
    return this.tools.size;
  }

  /** All tool names, in catalog order. */
  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The internal tool (with category and extras), or undefined. */
  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  /** Every tool, in catalog order. */
  list(): Tool[] {
    return [...this.tools.values()];
  }

  /** The tool in Anthropic shape exactly as given (no invented fields; `category` and other extras left out). */
  describe(name: string): AnthropicTool | undefined {
    const tool = this.tools.get(name);
    return tool ? structuredClone(tool.definition) : undefined;
  }

  /** Like `describe`, but an unknown name throws `unknown_tool` with the closest names as suggestions. */
  require(name: string): Tool {
    const tool = this.tools.get(name);
    if (!tool) throw unknownName("unknown_tool", name, this.closestNames(name));
    return tool;
  }

  /** Names close to `name`, closest first. */
  closestNames(name: string, max = 3): string[] {
    return closestNames(name, this.tools.keys(), max);
  }

  /** Adds one tool (any shape); throws `tool_invalid` for a bad tool or a name already present. */
  add(tool: unknown): void {
    const checked = this.check(tool);
    if (this.tools.has(checked.name)) {
      throw new ToolsearchError("tool_invalid", `Tool ${JSON.stringify(checked.name)} is already in the index: use replace() to change it.`);
    }
    this.index(checked);
  }

  /** Replaces the tool of the same name, or adds it when absent. Only that tool is re-indexed. */
  replace(tool: unknown): void {
    this.index(this.check(tool));
  }

  /** Removes a tool; returns false when there was none by that name. */
  remove(name: string): boolean {
    if (!this.tools.delete(name)) return false;
    this.bm25.remove(name);
    this.regex.remove(name);
    this.semantic.delete(name);
    return true;
  }

  /** Searches the catalog; see `ToolSearchOptions`. */
  async search(query: string, options: ToolSearchOptions = {}): Promise<ToolHit[]> {
    const engine = options.engine ?? "bm25";
    if (engine !== "semantic" && engine !== "hybrid") return this.searchSync(query, options);
    const limit = checkLimit(options.limit);
    this.undefer();
    await this.semantic.prepare();
    const vector = await this.semantic.embedQuery(query);
    const ranked = engine === "semantic"
      ? this.semantic.rankDense(vector, limit)
      : this.semantic.rankHybrid(this.bm25.search(this.analyzer.analyze(query), HYBRID_CANDIDATES, { fuzzy: options.fuzzy }), vector, limit);
    return ranked.map((hit) => this.toHit(hit));
  }

  /**
   * Embeds every tool that has no vector yet (cached vectors are reused), so that the first `semantic` or `hybrid`
   * search does not pay for it; `onProgress` counts the tools actually sent to the provider.
   */
  async prepareEmbeddings(onProgress?: EmbedProgress): Promise<void> {
    this.undefer();
    await this.semantic.prepare(onProgress);
  }

  /** Number of tools that have a vector (embedded, from the cache, or loaded from a snapshot). */
  get vectorCount(): number {
    return this.deferred ? (this.deferred.vectors?.ids.length ?? 0) : this.semantic.vectorCount;
  }

  /** The embedder behind `semantic` and `hybrid` (created on first use). */
  get embedder(): Embedder {
    return this.semantic.getEmbedder();
  }

  /** `search` without the promise, for the engines that need no I/O (`bm25`, `regex`). */
  searchSync(query: string, options: ToolSearchOptions = {}): ToolHit[] {
    const limit = checkLimit(options.limit);
    const engine = options.engine ?? "bm25";
    let ranked: Ranked[];
    if (engine === "bm25") ranked = this.bm25.search(this.analyzer.analyze(query), limit, { fuzzy: options.fuzzy });
    else if (engine === "regex") {
      this.undefer();
      ranked = this.regex.search(query, limit);
    }
    else if (engine === "semantic" || engine === "hybrid") throw needsAsync(engine);
    else throw new ToolsearchError("unknown_engine", `Unknown engine ${JSON.stringify(engine)}: use ${TOOL_ENGINES.join(", ")}.`);
    return ranked.map((hit) => this.toHit(hit));
  }

  /**
   * Why `name` ranks where it does for `query` with one engine: its rank among every match, its score, what outranks
   * it, and what the score is made of (see `Explanation`). An unknown name throws `unknown_tool`.
   *
   * @example
   * ```ts
   * const why = await tools.explain("wether forecast", "get_forecast", { engine: "bm25" });
   * why.terms?.reduce((sum, t) => sum + t.contribution, 0); // === why.score (up to rounding)
   * ```
   */
  async explain(query: string, name: string, options: ExplainOptions<ToolEngine> = {}): Promise<Explanation> {
    this.require(name);
    const engine = options.engine ?? "bm25";
    const all = Math.max(1, this.size);
    const base = { name, engine, query };
    if (engine === "regex") {
      const fields = explainedFields(this.regex.explain(query, name), REGEX_FIELD_NAMES);
      return { ...base, ...placeIn(this.regex.search(query, all), name), fields };
    }
    const terms = this.analyzer.analyze(query);
    const bm25Terms = () => explainedTerms(this.bm25.explain(terms, name, { fuzzy: options.fuzzy }));
    if (engine === "bm25") return { ...base, ...placeIn(this.bm25.search(terms, all, { fuzzy: options.fuzzy }), name), terms: bm25Terms() };
    if (engine !== "semantic" && engine !== "hybrid") this.searchSync(query, { engine }); // throws unknown_engine
    await this.semantic.prepare();
    const vectors = await this.semantic.embedQuery(query);
    const semantic = explainedSimilarity(querySentences(query), this.semantic.sentenceScores(name, vectors));
    if (engine === "semantic") return { ...base, ...placeIn(this.semantic.rankDense(vectors, all), name), semantic };
    const lexical = this.bm25.search(terms, HYBRID_CANDIDATES, { fuzzy: options.fuzzy });
    const { fused, input } = this.semantic.explainHybrid(lexical, vectors);
    const hit = fused.find((h) => h.id === name);
    const parts = explainedParts(hit, input, name);
    const out: Explanation = { ...base, ...placeIn(fused, name), parts, terms: bm25Terms(), semantic };
    if (!hit) out.note = NOT_A_HYBRID_CANDIDATE;
    return out;
  }

  /**
   * Words worth suggesting when a query finds nothing: close tool names, and vocabulary terms near the query's
   * words.
   */
  suggest(query: string, max = 5): string[] {
    const names = this.closestNames(query.trim().replace(/\s+/g, "_"), max);
    const terms = this.analyzer.analyze(query).flatMap((t) => this.bm25.nearTerms(t, 2).map((e) => e.term));
    return [...new Set([...names, ...terms])].slice(0, max);
  }

  private toHit(hit: Ranked): ToolHit {
    const tool = this.tools.get(hit.id)!;
    const out: ToolHit = { name: tool.name, score: hit.score, description: truncateAtWord(tool.description, DESCRIPTION_PREVIEW_CHARS) };
    if (tool.category !== undefined) out.category = tool.category;
    return out;
  }

  private check(tool: unknown): Tool {
    const checked = checkItem(tool, this.tools.size, "tool");
    if (!checked.tool) {
      const p = checked.problems[0];
      const code = checked.problems.some((q) => q.code === "schema_too_large") ? "schema_too_large" : "tool_invalid";
      throw new ToolsearchError(code, `${describeLocation({ name: p.name })}: ${p.message}`.replace(/^: /, ""), { problems: checked.problems });
    }
    return checked.tool;
  }

  /** Puts back a saved tool; its BM25 terms are in the snapshot, its other texts are made when first needed. */
  private restore(stored: StoredTool): void {
    const [name, description, shape, definition, extras, title, schema] = stored;
    const tool: Tool = { name, description, inputSchema: schema ?? definition.input_schema, shape, definition, extras };
    if (typeof extras.category === "string") tool.category = extras.category;
    if (title !== null) tool.title = title;
    this.tools.set(name, tool);
  }

  private index(tool: Tool): void {
    const texts = toolTexts(tool);
    this.tools.set(tool.name, tool);
    const fieldTerms = TOOL_FIELDS.map((field) => this.analyzer.analyze(texts[field]));
    this.bm25.add(tool.name, this.bag ? [fieldTerms.flat()] : fieldTerms);
    this.regex.add({ id: tool.name, fields: regexFields(tool, texts) });
    this.semantic.set(tool.name, toolEmbeddingText(tool, this.embeddingText));
  }
}

/** A tool as a snapshot keeps it: a tuple, with the schema only when it is not the definition's own. */
type StoredTool = [string, string, Tool["shape"], Tool["definition"], Record<string, unknown>, string | null, Tool["inputSchema"] | null];

function storedTool(tool: Tool): StoredTool {
  const schema = tool.inputSchema === tool.definition.input_schema ? null : tool.inputSchema;
  return [tool.name, tool.description, tool.shape, tool.definition, tool.extras, tool.title ?? null, schema];
}

/** Validates a result limit (1–50, default 5). */
export function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new ToolsearchError("invalid_option", `limit must be a whole number from 1 to ${MAX_LIMIT} (got ${limit}).`);
  }
  return limit;
}
