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
import { HYBRID_CANDIDATES, SemanticStore, type VectorState } from "../embeddings/semantic-store.js";
import { toolEmbeddingText, toolNameText } from "../embeddings/texts.js";
import { describeLocation, ToolsearchError, unknownName } from "../errors.js";
import { Bm25fIndex, type Bm25fOptions, type Bm25fScoring, type Bm25fSubset } from "../engines/bm25f.js";
import { candidateScoring, type FitResult, type FitTarget, fitFusionWeight, type FusionFitResult, fitLexicalRanking, pseudoQueries, isLexicalRanking, type LexicalRanking } from "./catalog-fit.js";
import { RegexIndex } from "../engines/regex.js";
import type { QueryEvidence } from "../ranking/features.js";
import { type LearnedModel, readsNames } from "../ranking/model.js";
import { embedQuery, type QueryEmbedding } from "../search/engine-lists.js";
import type { SearchEngines } from "../search/engines.js";
import { explainTool } from "../search/explain-tool.js";
import { modelEvidence, searchTools } from "../search/pipeline.js";
import { embedsQuery, modelFor, type RankerModels, rankerModels, searchRequest, setParts, syncSearchRequest, type ToolSearchRequest } from "../search/request.js";
import { type Analyzer, createAnalyzer } from "../text/analyzer.js";
import { type BulkAnalysis, IdList } from "../text/term-ids.js";
import { closestNames } from "../text/suggest.js";
import type { LearnedSignal } from "../usage/learned.js";
import { curationOfFile } from "../usage/catalog-curation.js";
import { UsageRanking, type UsageSearchOptions } from "../usage/ranking.js";
import { checkRules, checkSynonyms, type Rules, type Synonyms } from "../usage/curation.js";
import type { Explanation, ExplainOptions } from "./explain.js";
import {
  analyzerSettings, bm25Sections, bm25State, checkAnalyzer, decodeSnapshot, encodeSnapshot, int32Section, invalid, savedVectors, textSection, vectorParts,
} from "./snapshot.js";
import { restoredTool, type StoredTool, ToolTable } from "./tool-table.js";
import { regexFields, TOOL_FIELDS, type ToolTexts, toolTexts } from "./tool-fields.js";
import { DEFAULT_TOOL_BM25, TOOL_PRESENCE_FLOOR, type ToolEngine, type ToolHit, type ToolIndexOptions, type ToolSearchOptions, type ToolVisibility } from "./tool-index-options.js";

export { checkLimit } from "../search/request.js";

export class ToolIndex {
  readonly analyzer: Analyzer;
  /** The tools by name; those loaded from a snapshot are materialised on first need (see `ToolTable`). */
  private tools = new ToolTable();
  /** The byte length of the snapshot this index was loaded from: its sections are read in place, so it stays alive. */
  private snapshotBytes = 0;
  private bm25: Bm25fIndex;
  private readonly bm25Options: Bm25fOptions;
  private readonly options: ToolIndexOptions;
  private readonly regex = new RegexIndex(3);
  /** Vectors for the `semantic` and `hybrid` engines, made on first use. */
  private readonly semantic: SemanticStore;
  private readonly embeddingText: ToolIndexOptions["embeddingText"];
  /**
   * Set until first needed, on a built index as on one loaded from a snapshot: the regex texts and embedding texts of
   * its tools are made then (with any saved vectors), so that a BM25-only build or start pays nothing for them.
   */
  private deferred: { vectors?: VectorState } | undefined;
  /** Whether every field goes into one bag (plain BM25) rather than its own BM25F field. */
  private readonly bag: boolean;
  /** Whether the lexical ranking is chosen per catalog (`ToolBm25Options.fit`), and the choice so far. */
  private readonly autoFit: boolean;
  private fitted: { ranking: LexicalRanking; size: number; result?: FitResult } | undefined;
  /** Tools added, replaced or removed since the last fit. */
  private changesSinceFit = 0;
  /** Whether `hybrid`'s fusion is fitted per catalog (`FusionOptions.fit`), the fit so far, and changes since. */
  private readonly autoFusion: boolean;
  private fusionFitted: { size: number; lexicalWeight: number; result?: FusionFitResult } | undefined;
  private fusionFitting: Promise<void> | undefined;
  private changesSinceFusionFit = 0;
  /** Each caller's subset of the BM25 index (see `ToolVisibility`), remade when the index has changed. */
  private readonly subsets = new WeakMap<ToolVisibility, Bm25fSubset>();
  /** Synonyms, pinned rules and the learned signal: inputs read around the engines, never inside them. */
  private readonly usage: UsageRanking;
  private readonly exists = (name: string) => this.tools.has(name);
  /** The learned ranker's models (`ToolIndexOptions.ranker`), or undefined where it is off. */
  private readonly ranker: RankerModels;
  /** Whether a model of this index reads tool names embedded on their own (else names are never embedded). */
  private readonly embedsNames: boolean;
  /** Where each field's term ids end in the list `index` gathers them in (reused: indexing is never reentrant). */
  private readonly fieldEnds = new Int32Array(TOOL_FIELDS.length);

  constructor(tools: Tool[] = [], options: ToolIndexOptions = {}) {
    this.analyzer = createAnalyzer(options.analyzer);
    this.semantic = new SemanticStore(options.embedder, options.fusion);
    this.embeddingText = options.embeddingText;
    this.options = options;
    const bm25 = options.bm25 ?? {};
    this.bag = bm25.bag !== undefined;
    const fusion = options.fusion ?? {};
    this.autoFusion = fusion.fit !== false && fusion.method === undefined && fusion.lexicalWeight === undefined;
    this.autoFit = bm25.fit !== false && !this.bag && bm25.fields === undefined && bm25.k1 === undefined;
    this.bm25Options = {
      k1: bm25.k1 ?? DEFAULT_TOOL_BM25.k1,
      fields: bm25.bag
        ? [{ name: "all", weight: 1, b: bm25.bag.b }]
        : TOOL_FIELDS.map((name) => ({ name, ...DEFAULT_TOOL_BM25.fields[name], ...bm25.fields?.[name] })),
      fuzzy: bm25.fuzzy,
      presenceFloor: !this.bag && TOOL_PRESENCE_FLOOR,
    };
    this.bm25 = new Bm25fIndex(this.bm25Options);
    this.ranker = rankerModels(options);
    this.embedsNames = readsNames(this.ranker.hybrid) || readsNames(this.ranker.lexical);
    this.usage = new UsageRanking(this.analyzer);
    this.setSynonyms(options.synonyms);
    this.setRules(options.rules);
    this.setLearned(options.learned);
    this.deferred = {};
    // A build analyzes each distinct text, chunk and word once, straight to the engine's term ids (see `bulkIds`);
    // the memo lives only as long as the build.
    const resolve = (term: string) => this.bm25.termId(term);
    const bulk = this.analyzer.bulkIds?.(resolve) ?? ((text: string, out: IdList) => {
      for (const term of this.analyzer.analyze(text)) out.push(resolve(term));
    });
    const ids = new IdList();
    for (const tool of tools) this.index(tool, bulk, ids);
    this.bm25.flush();
  }

  /** Replaces the synonyms applied to queries (`undefined` for none); takes effect at the next search. */
  setSynonyms(synonyms: Synonyms | undefined): void {
    this.usage.setSynonyms(synonyms && checkSynonyms(synonyms, "synonyms"));
  }

  /** Replaces the pinned-result rules (`undefined` for none). */
  setRules(rules: Rules | undefined): void {
    this.usage.setRules(rules && checkRules(rules, "rules"));
  }

  /** Replaces the learned signal blended into `bm25` and `hybrid` (`undefined` for none). */
  setLearned(learned: LearnedSignal | undefined): void {
    this.usage.setLearned(learned);
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
    const vectors = vectorParts(this.semantic.exportVectors());
    const header = {
      kind: "tools",
      analyzer: analyzerSettings(this.options.analyzer),
      bag: this.bag,
      fit: this.autoFit ? this.lexicalRanking : undefined,
      // The fitted fusion share, when a fit was made: a loaded index then embeds no pseudo-queries.
      fusion: this.autoFusion ? this.fusionFitted?.lexicalWeight : undefined,
      vectors: vectors.header,
    };
    // Tools as JSON texts in catalog order, each named by its BM25 slot (whose id is its name): no per-tool JSON in the
    // header, and a loader parses a tool only when it is first asked for.
    const slots = new Map(state.ids.map((id, slot) => [id, slot]));
    const toolSlots = Int32Array.from(this.tools.keys(), (name) => slots.get(name)!);
    const sections = { ...bm25Sections(state, true), toolSlots, tools: this.tools.storedTexts(), ...vectors.sections };
    return encodeSnapshot(header, sections, TOOLS_FORMAT);
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
      const state = bm25State(header, sections);
      this.bm25 = Bm25fIndex.fromState(this.bm25Options, state);
      this.tools = Array.isArray(header.tools) ? legacyTools(header.tools as LegacyStoredTool[]) : savedTools(state.ids, sections);
      this.snapshotBytes = snapshot.buffer.byteLength;
    } catch (error) {
      this.bm25 = new Bm25fIndex(this.bm25Options);
      throw error instanceof ToolsearchError ? error : invalid((error as Error).message);
    }
    if (this.autoFit && isLexicalRanking(header.fit)) {
      this.bm25.rescore(candidateScoring(header.fit));
      this.fitted = { ranking: header.fit, size: this.tools.size };
    }
    if (this.autoFusion && typeof header.fusion === "number" && header.fusion >= 0 && header.fusion <= 1) {
      this.semantic.setLexicalWeight(header.fusion);
      this.fusionFitted = { size: this.tools.size, lexicalWeight: header.fusion };
    }
    this.deferred = { vectors: savedVectors(header, sections) };
  }

  /** Makes what a restored index deferred (see `deferred`); a no-op once done or for a built index. */
  private undefer(): void {
    if (!this.deferred) return;
    const { vectors } = this.deferred;
    this.deferred = undefined;
    for (const tool of this.tools.values()) {
      this.regex.add({ id: tool.name, fields: regexFields(tool, toolTexts(tool)) });
      this.semantic.set(tool.name, toolEmbeddingText(tool, this.embeddingText), toolNameText(tool));
    }
    if (vectors) this.semantic.importVectors(vectors);
  }

  /**
   * Loads a catalog file (JSON, `{tools:[…]}`, JSONL or YAML; any tool shape), with the `synonyms` and `rules` it
   * holds beside `tools` (those of `options` win). Refuses a bad file whole.
   */
  static async fromFile(path: string, options?: ToolIndexOptions): Promise<ToolIndex> {
    const tools = loadCatalogFile(path);
    return new ToolIndex(tools, { ...curationOfFile(path), ...options });
  }

  /** Builds an index from tools in any supported shape, validated as a catalog file would be. */
  static async fromTools(tools: unknown[], options?: ToolIndexOptions): Promise<ToolIndex> {
    return new ToolIndex(normalizeTools(tools), options);
  }

  /**
   * Bytes this index holds in memory: its BM25 arrays (`Bm25fIndex.memoryBytes`), the snapshot it was loaded from
   * (kept whole: its sections are read in place), its materialised tools (`ToolTable.bytes`), and its embedding texts
   * and vectors (`SemanticStore.memoryBytes`; with USE lite about 2.6 KB per tool for each of its text and its name).
   * Used to keep a service's loaded collections within a memory budget.
   */
  memoryBytes(): number {
    const bytes = this.bm25.memoryBytes() + this.tools.bytes + this.snapshotBytes + (this.analyzer.memoryBytes?.() ?? 0);
    return bytes + this.semantic.memoryBytes();
  }

  /**
   * Embedding texts and vectors held (`SemanticStore.entries`): vectors are made on the first dense search, so a
   * size counted by `memoryBytes` at another value is stale.
   */
  get semanticEntries(): number {
    return this.semantic.entries;
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

  /**
   * Like `describe`, but an unknown name throws `unknown_tool` with the closest names as suggestions. With `visible`, a
   * hidden tool is unknown and never suggested.
   */
  require(name: string, visible?: ToolVisibility): Tool {
    const tool = this.tools.get(name);
    if (!tool || (visible && !visible.accept(name))) throw unknownName("unknown_tool", name, this.closestNames(name, 3, visible));
    return tool;
  }

  /** Names close to `name`, closest first (of the visible tools only, with `visible`). */
  closestNames(name: string, max = 3, visible?: ToolVisibility): string[] {
    const names = visible ? [...this.tools.keys()].filter(visible.accept) : this.tools.keys();
    return closestNames(name, names, max);
  }

  /** How many tools `visible` lets through. */
  visibleCount(visible: ToolVisibility): number {
    return this.subset(visible).size;
  }

  /** The BM25 subset of a caller's visible tools, made once per change of the index. */
  private subset(visible: ToolVisibility): Bm25fSubset {
    let subset = this.subsets.get(visible);
    if (!subset || subset.version !== this.bm25.version) this.subsets.set(visible, (subset = this.bm25.subset(visible.accept)));
    return subset;
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
    this.changesSinceFit++;
    this.changesSinceFusionFit++;
    this.bm25.remove(name);
    // While deferred, the regex and embedding texts are made later from the tools left.
    if (!this.deferred) {
      this.regex.remove(name);
      this.semantic.delete(name);
    }
    return true;
  }

  /**
   * Searches the catalog; see `ToolSearchOptions`. The search is the pipeline of `src/search/pipeline.ts`
   * (candidates from each engine → features → model → curation and visibility → hits); the index only makes ready
   * what it reads: the query's vectors for a dense engine, and the engines as this caller sees them.
   */
  async search(query: string, options: ToolSearchOptions = {}): Promise<ToolHit[]> {
    const request = searchRequest(options, this.ranker);
    const embedding = embedsQuery(request.engine) ? await this.embed(query, request) : undefined;
    return searchTools(query, request, this.enginesFor(request), embedding);
  }

  /** `search` without the promise, for the engines that need no I/O (`bm25`, `regex`). */
  searchSync(query: string, options: ToolSearchOptions = {}): ToolHit[] {
    const request = syncSearchRequest(options, this.ranker);
    return searchTools(query, request, this.enginesFor(request));
  }

  /**
   * Embeds every tool that has no vector yet (cached vectors are reused) and fits `hybrid`'s fusion to the catalog
   * (`FusionOptions.fit`), so that the first `semantic` or `hybrid` search does not pay for it; `onProgress` counts the
   * tools actually sent to the provider.
   */
  async prepareEmbeddings(onProgress?: EmbedProgress): Promise<void> {
    this.undefer();
    await this.semantic.prepare(onProgress, { names: this.embedsNames });
    await this.fitFusion();
  }

  /** Number of tools that have a vector (embedded, from the cache, or loaded from a snapshot). */
  get vectorCount(): number {
    return this.deferred ? (this.deferred.vectors?.ids.length ?? 0) : this.semantic.vectorCount;
  }

  /** The embedder behind `semantic` and `hybrid` (created on first use). */
  get embedder(): Embedder {
    return this.semantic.getEmbedder();
  }

  /**
   * The query's vectors for a dense engine, once every tool has its vector (and its name's, when `names`: the model in
   * use reads them) and `hybrid`'s fusion is fitted.
   */
  private async embed(query: string, request: Pick<ToolSearchRequest, "engine" | "sets" | "model">, names = readsNames(request.model)): Promise<QueryEmbedding> {
    this.undefer();
    await this.semantic.prepare(undefined, { names });
    if (request.engine === "hybrid") await this.fitFusion();
    return embedQuery(query, request, this.semantic);
  }

  /** The engines a search reads: the regex and embedding texts made unless it is `bm25`, BM25 readied where it is used. */
  private enginesFor(request: ToolSearchRequest): SearchEngines {
    if (request.engine !== "bm25") this.undefer();
    return this.engines(request, request.engine === "bm25" || request.engine === "hybrid");
  }

  /**
   * What the search stages read (`SearchEngines`) for a caller: with `lexical`, BM25 with the catalog's ranking fitted
   * first when due and the caller's subset (see `bm25Query`).
   */
  private engines(options: { fuzzy?: boolean; visible?: ToolVisibility }, lexical: boolean): SearchEngines {
    const tools = this.tools;
    return {
      lexical: lexical ? { index: this.bm25, query: this.bm25Query(options), fields: this.bm25Options.fields.map((f) => f.name) } : undefined,
      semantic: this.semantic,
      regex: this.regex,
      usage: this.usage,
      tool: (name) => tools.get(name)!,
      exists: this.existsFor(options.visible),
      accept: options.visible?.accept,
    };
  }

  /** Which names a pinned rule may bring in: tools of the index, and of those only the ones the caller sees. */
  private existsFor(visible: ToolVisibility | undefined): (name: string) => boolean {
    return visible ? (name) => this.tools.has(name) && visible.accept(name) : this.exists;
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
  async explain(query: string, name: string, options: ExplainOptions<ToolEngine> & UsageSearchOptions & Pick<ToolSearchOptions, "sets" | "visible" | "ranker"> = {}): Promise<Explanation> {
    this.require(name, options.visible);
    this.undefer();
    // An explanation has no page: a limit given with its options is not its to check.
    const request = searchRequest({ ...options, limit: undefined }, this.ranker);
    const all = Math.max(1, options.visible ? this.visibleCount(options.visible) : this.size);
    const embedding = embedsQuery(request.engine) ? await this.embed(query, request) : undefined;
    return explainTool(query, name, request, this.engines(options, request.engine !== "regex"), all, embedding);
  }

  /**
   * Words worth suggesting when a query finds nothing: close tool names, and vocabulary terms near the query's
   * words.
   */
  suggest(query: string, max = 5, visible?: ToolVisibility): string[] {
    const names = this.closestNames(query.trim().replace(/\s+/g, "_"), max, visible);
    const subset = visible && this.subset(visible);
    const terms = this.analyzer.analyze(query).flatMap((t) => this.bm25.nearTerms(t, 2, subset).map((e) => e.term));
    return [...new Set([...names, ...terms])].slice(0, max);
  }

  /**
   * The lexical ranking in use: `fields`, `plain` or `mixed` as chosen for this catalog (see `ToolBm25Options.fit`),
   * or `custom` when the options set the BM25 parameters themselves.
   */
  get lexicalRanking(): LexicalRanking | "custom" {
    return this.autoFit ? (this.lexical(), this.fitted!.ranking) : "custom";
  }

  /**
   * The evidence of a request as the ranker of its engine (`bm25` or `hybrid`) reads it, with the model in use
   * (undefined where the ranker is off): stages 1 and 2 of the search pipeline alone. For `explain`, the training
   * script (`scripts/train-ranker.ts`) and tests.
   */
  async rankerEvidence(query: string, options: ToolSearchOptions = {}): Promise<{ kind: "hybrid" | "lexical"; model?: LearnedModel; evidence: QueryEvidence } | undefined> {
    const engine = options.engine ?? "bm25";
    if (engine !== "bm25" && engine !== "hybrid") return undefined;
    const request = { engine, sets: setParts(options.sets, engine) };
    // All the evidence, whatever the model reads: training and explain show every feature.
    const embedding = engine === "hybrid" ? await this.embed(query, request, true) : undefined;
    const { terms } = this.usage.terms(query);
    const evidence = modelEvidence(query, terms, request, this.engines(options, true), embedding);
    return { model: modelFor(engine, options, this.ranker), kind: engine === "hybrid" ? "hybrid" : "lexical", evidence };
  }

  /** The BM25 index, its ranking chosen for this catalog first when that is due (see `ToolBm25Options.fit`). */
  private lexical(): Bm25fIndex {
    if (!this.autoFit) return this.bm25;
    const due = !this.fitted || this.changesSinceFit > Math.max(FIT_MIN_CHANGES, this.fitted.size * FIT_CHANGE_SHARE);
    if (!due) return this.bm25;
    let current: Bm25fScoring | undefined;
    const result = fitLexicalRanking({
      analyzer: this.analyzer,
      tools: this.fitTools(),
      rank: (query, scoring) => {
        // The fit ranks every query with one candidate before the next: rescoring only on a change keeps each
        // posting's normalized frequencies cached across those queries (a rescore invalidates them all).
        if (scoring !== current) this.bm25.rescore((current = scoring));
        return this.bm25.search(this.analyzer.analyze(query), 10, { fuzzy: false }).map((h) => h.id);
      },
    });
    this.bm25.rescore(candidateScoring(result.ranking));
    this.fitted = { ranking: result.ranking, size: this.tools.size, result };
    this.changesSinceFit = 0;
    return this.bm25;
  }

  /**
   * What `hybrid` fuses with on this catalog: the lexical share (0 is the embedding alone, 1 BM25 alone) and, when it
   * was fitted here (`FusionOptions.fit`; not when restored from a snapshot), the pseudo-query scores that chose it.
   * Fits first when that is due.
   */
  async fusionFit(): Promise<{ lexicalWeight: number; fit?: FusionFitResult }> {
    this.undefer();
    await this.semantic.prepare();
    await this.fitFusion();
    return { lexicalWeight: this.semantic.lexicalWeight, fit: this.fusionFitted?.result };
  }

  /** Fits `hybrid`'s lexical share to this catalog when due (first hybrid search, then after as many changes as the lexical fit). */
  private async fitFusion(): Promise<void> {
    if (!this.autoFusion) return;
    const due = !this.fusionFitted || this.changesSinceFusionFit > Math.max(FIT_MIN_CHANGES, this.fusionFitted.size * FIT_CHANGE_SHARE);
    if (!due) return;
    // Concurrent first searches share one fit.
    this.fusionFitting ??= this.runFusionFit().finally(() => (this.fusionFitting = undefined));
    await this.fusionFitting;
  }

  private async runFusionFit(): Promise<void> {
    const changes = this.changesSinceFusionFit;
    const queries = pseudoQueries(this.fitTools(), this.analyzer);
    // Through the persistent cache, like item vectors: a restart or another replica embeds them no more.
    const vectors = await this.semantic.getEmbedder().embedMany(queries.map((q) => q.query));
    const bm25 = this.lexical();
    const samples = queries.map((q, i) => ({
      relevant: q.relevant,
      input: this.semantic.fusionInput(bm25.search(this.analyzer.analyze(q.query), HYBRID_CANDIDATES, { fuzzy: false }), [vectors[i]], HYBRID_CANDIDATES),
    }));
    const result = fitFusionWeight(samples, this.options.fusion);
    this.semantic.setLexicalWeight(result.lexicalWeight);
    this.fusionFitted = { size: this.tools.size, lexicalWeight: result.lexicalWeight, result };
    this.changesSinceFusionFit -= changes;
  }

  /** The tools as the fits read them: texts are made only for the few the pseudo-queries come from. */
  private fitTools(): FitTarget["tools"] {
    const tools = this.tools;
    return this.names().map((name) => {
      let texts: ToolTexts | undefined;
      return { name, get texts() { return (texts ??= toolTexts(tools.get(name)!)); } };
    });
  }

  /** What the BM25 engine is told for a search: typo tolerance, and the caller's subset when it sees only some tools. */
  private bm25Query(options: { fuzzy?: boolean; visible?: ToolVisibility }): { fuzzy?: boolean; subset?: Bm25fSubset } {
    // The catalog's fitted ranking first: a rescore after the subset is made would leave the subset stale.
    this.lexical();
    return { fuzzy: options.fuzzy, ...(options.visible ? { subset: this.subset(options.visible) } : {}) };
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

  /** Indexes one tool, its fields' term ids gathered in `ids` (reused from tool to tool by a build). */
  private index(tool: Tool, analyze: BulkAnalysis = (text, out) => this.analyzeInto(text, out), ids = new IdList()): void {
    const texts = toolTexts(tool);
    this.changesSinceFit++;
    this.changesSinceFusionFit++;
    this.tools.set(tool.name, tool);
    ids.length = 0;
    const ends = this.fieldEnds;
    for (let f = 0; f < TOOL_FIELDS.length; f++) {
      analyze(texts[TOOL_FIELDS[f]], ids);
      ends[f] = ids.length;
    }
    this.bm25.addTermRuns(tool.name, ids.ids, this.bag ? [ids.length] : ends);
    if (this.deferred) return; // made from `tools` on first need (see `deferred`)
    this.regex.add({ id: tool.name, fields: regexFields(tool, texts) });
    this.semantic.set(tool.name, toolEmbeddingText(tool, this.embeddingText), toolNameText(tool));
  }

  private analyzeInto(text: string, out: IdList): void {
    for (const term of this.analyzer.analyze(text)) out.push(this.bm25.termId(term));
  }
}

/** The lexical ranking is chosen again once more than this share of the catalog (and `FIT_MIN_CHANGES`) changed. */
const FIT_CHANGE_SHARE = 0.2;
const FIT_MIN_CHANGES = 8;

/**
 * The snapshot format of tools (`encodeSnapshot`): 3 keeps them as a string list named by BM25 slot. Formats 1 and 2
 * (every tool in the JSON header, with its name) are still read.
 */
const TOOLS_FORMAT = 3;

/** A tool as formats 1 and 2 keep it: its name, then a `StoredTool`. */
type LegacyStoredTool = [string, ...StoredTool];

function legacyTools(stored: LegacyStoredTool[]): ToolTable {
  const table = new ToolTable();
  for (const [name, ...rest] of stored) table.set(name, restoredTool(name, rest));
  return table;
}

/** The tools of a format 3 snapshot: `toolSlots[i]` is the BM25 slot whose id names `tools[i]`. */
function savedTools(ids: (string | null)[], sections: Parameters<typeof textSection>[0]): ToolTable {
  const slots = int32Section(sections, "toolSlots");
  const texts = textSection(sections, "tools");
  if (texts.length !== slots.length) throw invalid("its tools and their slots differ in number");
  const names = Array.from(slots, (slot) => ids[slot]);
  if (names.some((name) => typeof name !== "string")) throw invalid("a tool names a BM25 slot with no id");
  return ToolTable.of(names as string[], texts);
}
