/**
 * The dense half of an item index (tools or document passages): which text each id embeds, which ids still need a
 * vector, the vectors themselves, and the `semantic` and `hybrid` rankings. Item indexes call `set`/`delete` as
 * items come and go; vectors are made lazily, in one batch, on the first search that needs them (or on `prepare`).
 * An item whose text did not change keeps its vector; a changed item is re-embedded alone. An item may also have a
 * name (a tool's): it is embedded on its own, in the same batch and through the same cache, for `nameScores`.
 */
import { ToolsearchError } from "../errors.js";
import { DEFAULT_FUSION, type FusedHit, type FusionInput, type FusionOptions, fuse, fuseParts } from "../engines/fusion.js";
import type { Ranked } from "../engines/top-k.js";
import { ENTRY_BYTES } from "../engines/heap-cost.js";
import { VectorIndex } from "../engines/vector.js";
import { splitSentences } from "../text/sentences.js";
import { Embedder } from "./embedder.js";
import { expandQuery } from "./feedback.js";
import type { EmbeddingProvider, EmbedProgress } from "./provider.js";
import { USE_LITE_ID, UseLiteProvider } from "./use-lite.js";

/** The vectors of a store in flat form, for index snapshots: row `i` of `vectors` embeds `texts[i]` for `ids[i]`. */
export interface VectorState {
  /** The provider id the vectors came from; vectors of another provider are never mixed in. */
  embedder: string;
  dimensions: number;
  ids: string[];
  texts: string[];
  vectors: Float32Array;
  /**
   * The vectors of the items' names embedded on their own (`SemanticStore.nameScores`), in the same flat form; absent
   * in snapshots written before names had vectors (those are then embedded on first need, from the cache).
   */
  names?: Omit<VectorState, "embedder" | "dimensions" | "names">;
}

/** Lexical candidates fused with dense ones in `hybrid`; enough to reach past the first page of either list. */
export const HYBRID_CANDIDATES = 50;

/**
 * A query as the dense engines see it: one unit vector per sentence. A request that asks for several things
 * matches each tool through its closest sentence (see `splitSentences`).
 */
export type QueryVectors = readonly Float32Array[];

/** Saved vectors of one kind of text, with the text each was made from. */
type SavedRows = NonNullable<VectorState["names"]>;

/**
 * One kind of text the store embeds per item (its text, or a tool's name alone): which text each id has, which ids
 * still need a vector for it, and the vectors made, each with the text it was made from.
 */
class EmbeddedTexts {
  vectors: VectorIndex | undefined;
  readonly texts = new Map<string, string>();
  readonly stale = new Set<string>();
  private readonly embedded = new Map<string, string>();

  /** Records `id`'s text; it needs a (new) vector unless it is the text already embedded. */
  set(id: string, text: string): void {
    this.texts.set(id, text);
    if (this.embedded.get(id) === text) this.stale.delete(id);
    else this.stale.add(id);
  }

  /** Forgets `id`; true when it had a vector. */
  delete(id: string): boolean {
    this.texts.delete(id);
    this.embedded.delete(id);
    this.stale.delete(id);
    return this.vectors?.remove(id) ?? false;
  }

  /** The ids waiting for a vector, and their texts as they are now. */
  pendingTexts(): { ids: string[]; texts: string[] } {
    const ids = [...this.stale];
    return { ids, texts: ids.map((id) => this.texts.get(id)!) };
  }

  /** The index the vectors go into, made on first need with room for `rows`. */
  reserve(dimensions: number, rows: number): VectorIndex {
    return (this.vectors ??= new VectorIndex(dimensions, rows));
  }

  /**
   * Keeps `vector`, made from `text`, as `id`'s (after `reserve`), unless the id was removed or its text changed
   * while the vector was being made (a changed one stays stale); true when kept.
   */
  take(id: string, text: string, vector: Float32Array): boolean {
    if (this.texts.get(id) !== text) return false;
    this.vectors!.set(id, vector);
    this.embedded.set(id, text);
    this.stale.delete(id);
    return true;
  }

  /** Takes the saved vectors whose id still has the text they were made from; returns how many. */
  import(saved: SavedRows, dimensions: number): number {
    this.reserve(dimensions, Math.max(saved.ids.length, this.texts.size));
    let taken = 0;
    saved.ids.forEach((id, i) => {
      if (this.take(id, saved.texts[i], saved.vectors.subarray(i * dimensions, (i + 1) * dimensions))) taken++;
    });
    return taken;
  }

  /** The vectors made, with the text each was made from; undefined when there are none. */
  export(): SavedRows | undefined {
    if (!this.vectors || this.vectors.size === 0) return undefined;
    const { ids, vectors } = this.vectors.exportRows();
    return { ids, texts: ids.map((id) => this.embedded.get(id)!), vectors };
  }

  /**
   * Bytes it holds: its vector index (`VectorIndex.memoryBytes`), the texts as UTF-16 with a map entry each, and a map
   * entry per text embedded or waiting (those strings are the same ones).
   */
  memoryBytes(): number {
    let bytes = this.vectors?.memoryBytes ?? 0;
    for (const text of this.texts.values()) bytes += ENTRY_BYTES + 2 * text.length;
    return bytes + ENTRY_BYTES * (this.embedded.size + this.stale.size);
  }
}

export class SemanticStore {
  private embedder: Embedder | undefined;
  /** Each item's text and its vector. */
  private readonly items = new EmbeddedTexts();
  /** The items' names (a tool's), each embedded on its own: a second vector per item. */
  private readonly names = new EmbeddedTexts();
  private preparing: Promise<void> | undefined;
  private fusion: FusionOptions;
  /**
   * Each item's centrality (`VectorIndex.centralities`) among all items (`all`) and among those a caller sees (by its
   * visibility filter), made on first use after the vectors last changed (`vectorsChanged`).
   */
  private central: { all?: Map<string, number>; seen: WeakMap<(id: string) => boolean, Map<string, number>> } = { seen: new WeakMap() };

  constructor(embedder: Embedder | EmbeddingProvider | undefined, fusion: FusionOptions = {}) {
    this.embedder = embedder === undefined || embedder instanceof Embedder ? embedder : new Embedder(embedder);
    this.fusion = { ...DEFAULT_FUSION, ...fusion };
  }

  /** The embedder in use, created (USE lite, default cache) on first need. */
  getEmbedder(): Embedder {
    this.embedder ??= new Embedder(new UseLiteProvider());
    return this.embedder;
  }

  /**
   * Records the text `id` embeds, and its `name` (words) when it has one (not empty); each gets a (new) vector before the next
   * dense search unless it is unchanged.
   */
  set(id: string, text: string, name?: string): void {
    this.items.set(id, text);
    if (name) this.names.set(id, name);
    else this.names.delete(id);
  }

  delete(id: string): void {
    this.names.delete(id);
    if (this.items.delete(id)) this.vectorsChanged();
  }

  private get vectors(): VectorIndex | undefined {
    return this.items.vectors;
  }

  /** Number of items with a vector. */
  get vectorCount(): number {
    return this.vectors?.size ?? 0;
  }

  /** Number of items with a vector of their name. */
  get nameVectorCount(): number {
    return this.names.vectors?.size ?? 0;
  }

  /**
   * Entries it holds (texts, vectors and name vectors): `memoryBytes` moves with it, so a size counted at another
   * value is stale (vectors are made lazily, long after an index is built or loaded).
   */
  get entries(): number {
    return this.items.texts.size + this.vectorCount + this.nameVectorCount;
  }

  /** Bytes it holds: the texts and names it embeds and their vectors (`EmbeddedTexts.memoryBytes`). */
  memoryBytes(): number {
    return this.items.memoryBytes() + this.names.memoryBytes();
  }

  /** Number of items still waiting for a vector (of their text or of their name). */
  get pending(): number {
    const { stale } = this.items;
    let names = 0;
    for (const id of this.names.stale) if (!stale.has(id)) names++;
    return stale.size + names;
  }

  /** Embeds every item that needs it (from the cache where possible). Concurrent calls share one run. */
  async prepare(onProgress?: EmbedProgress): Promise<void> {
    while (this.items.stale.size > 0 || this.names.stale.size > 0) {
      this.preparing ??= this.embedStale(onProgress).finally(() => (this.preparing = undefined));
      await this.preparing;
    }
  }

  /** The query as the dense engines see it: one unit vector per sentence, embedded in one provider call. */
  async embedQuery(query: string): Promise<QueryVectors> {
    return this.getEmbedder().embedQueries(querySentences(query));
  }

  /** One vector per clause of a request (each clause is one sentence), in one call to the embedder. */
  async embedClauses(clauses: string[]): Promise<[string, QueryVectors][]> {
    const vectors = await this.getEmbedder().embedQueries(clauses);
    return clauses.map((clause, i) => [clause, [vectors[i]]]);
  }

  /** The `k` ids closest to the query, each scored by its most similar sentence; `accept` filters ids. */
  rankDense(query: QueryVectors, k: number, accept?: (id: string) => boolean): Ranked[] {
    return this.vectors?.searchMax(query, k, accept) ?? [];
  }

  /**
   * Fuses a lexical ranking (best first, raw scores, at least `HYBRID_CANDIDATES` long when there are that many
   * matches) with the dense ranking of the same query. Lexical candidates missing from the dense top list get their
   * exact similarity, so the two lists describe the same candidates.
   */
  rankHybrid(lexical: Ranked[], query: QueryVectors, limit: number, accept?: (id: string) => boolean): Ranked[] {
    return fuse(this.fusionInput(lexical, query, limit, accept), limit, this.fusion);
  }

  /** `rankHybrid` of lists already gathered (`fusionInput`). */
  fuseInput(input: FusionInput, limit: number): Ranked[] {
    return fuse(input, limit, this.fusion);
  }

  /**
   * Every candidate `rankHybrid` fuses (for a limit up to `HYBRID_CANDIDATES`), best first, with the lexical and
   * dense parts of each fused score, and the raw scores that went in.
   */
  explainHybrid(lexical: Ranked[], query: QueryVectors, accept?: (id: string) => boolean): { fused: FusedHit[]; input: FusionInput } {
    const input = this.fusionInput(lexical, query, HYBRID_CANDIDATES, accept);
    return { fused: fuseParts(input, this.fusion), input };
  }

  /** Changes the lexical share of `hybrid` (a catalog's fitted fusion, see `fitFusionWeight`). */
  setLexicalWeight(lexicalWeight: number): void {
    this.fusion = { ...this.fusion, lexicalWeight };
  }

  /** The share `hybrid` fuses with now. */
  get lexicalWeight(): number {
    return this.fusion.lexicalWeight ?? DEFAULT_FUSION.lexicalWeight;
  }

  /**
   * How close `id` is to the rest of the catalog (0 the farthest item, 1 the closest; undefined without a vector): a
   * general-purpose tool sits near the middle of the catalog's topics, a narrow one at its edge. `accept`: the
   * caller's visibility filter; the place is then among the items it sees, so hidden items move nothing.
   */
  centrality(id: string, accept?: (id: string) => boolean): number | undefined {
    if (!this.vectors?.has(id)) return undefined;
    let places = accept ? this.central.seen.get(accept) : this.central.all;
    if (!places) {
      places = this.vectors.centralities(accept);
      if (accept) this.central.seen.set(accept, places);
      else this.central.all = places;
    }
    return places.get(id);
  }

  /**
   * Similarity of each id's name, embedded on its own, to the closest query sentence; undefined for an id without a
   * name vector. A tool's name often says its topic in a few words (`news tool`, `research finder`) that its longer
   * text dilutes; this carries the name's meaning to words the name does not contain.
   */
  nameScores(ids: readonly string[], query: QueryVectors): (number | undefined)[] {
    return this.names.vectors?.maxScores(ids, query) ?? ids.map(() => undefined);
  }

  /**
   * Similarity of each of `ids` to the closest query sentence after pseudo-relevance feedback (`expandQuery`): each
   * sentence moved toward the mean of the top few of `ranked` (the request's first-stage ranking), or without it of
   * its closest few among `ids`. Pass only ids the caller may see (its search's candidates and ranking); undefined for
   * an id without a vector.
   */
  feedbackScores(ids: readonly string[], query: QueryVectors, ranked?: readonly string[]): (number | undefined)[] {
    if (!this.vectors) return ids.map(() => undefined);
    return this.vectors.maxScores(ids, expandQuery(query, ids, this.vectors, undefined, ranked));
  }

  /** Forgets what was computed from the vectors. */
  private vectorsChanged(): void {
    this.central = { seen: new WeakMap() };
  }

  /** Similarity of `id` to each query sentence, in order; undefined when `id` has no vector. */
  sentenceScores(id: string, query: QueryVectors): number[] | undefined {
    if (!this.vectors?.has(id)) return undefined;
    return query.map((vector) => this.vectors!.score(id, vector)!);
  }

  /** The two lists `hybrid` fuses: the dense top `limit` (at least `HYBRID_CANDIDATES`) plus every lexical candidate. */
  fusionInput(lexical: Ranked[], query: QueryVectors, limit: number, accept?: (id: string) => boolean): FusionInput {
    const dense = this.rankDense(query, Math.max(HYBRID_CANDIDATES, limit), accept);
    const seen = new Set(dense.map((h) => h.id));
    const missing = lexical.filter((hit) => !seen.has(hit.id)).map((hit) => hit.id);
    this.vectors?.maxScores(missing, query).forEach((score, i) => {
      if (score !== undefined) dense.push({ id: missing[i], score });
    });
    return { lexical, dense };
  }

  /** The vectors made so far, or undefined when there are none. */
  exportVectors(): VectorState | undefined {
    const items = this.items.export();
    if (!items) return undefined;
    const state: VectorState = { embedder: this.embedder!.id, dimensions: this.vectors!.dimensions, ...items };
    const names = this.names.export();
    if (names) state.names = names;
    return state;
  }

  /**
   * Takes vectors from a snapshot: each one whose item still embeds the same text, when the provider is the one this
   * store uses (USE lite when none was given). Anything else stays to be embedded as usual; returns how many fit.
   */
  importVectors(state: VectorState): number {
    if (state.embedder !== (this.embedder?.id ?? USE_LITE_ID)) return 0;
    this.vectorsChanged();
    const taken = this.items.import(state, state.dimensions);
    if (state.names) this.names.import(state.names, state.dimensions);
    return taken;
  }

  private async embedStale(onProgress?: EmbedProgress): Promise<void> {
    const items = this.items.pendingTexts();
    const names = this.names.pendingTexts();
    const embedder = this.getEmbedder();
    // Names and texts in one batch: one pass through the cache and the provider.
    const vectors = await embedder.embedMany([...items.texts, ...names.texts], onProgress);
    if (items.ids.length > 0) {
      this.items.reserve(embedder.dimensions, this.items.texts.size);
      this.vectorsChanged();
    }
    items.ids.forEach((id, i) => this.items.take(id, items.texts[i], vectors[i]));
    if (names.ids.length > 0) this.names.reserve(embedder.dimensions, this.names.texts.size);
    names.ids.forEach((id, i) => this.names.take(id, names.texts[i], vectors[items.texts.length + i]));
  }
}

/** The texts a query is embedded as: its sentences, or the whole query when it has none. */
export function querySentences(query: string): string[] {
  const sentences = splitSentences(query);
  return sentences.length > 0 ? sentences : [query];
}

/** The error for a dense engine asked for through a synchronous call. */
export function needsAsync(engine: string): ToolsearchError {
  return new ToolsearchError("unknown_engine", `The ${engine} engine embeds the query: call search() (async), not searchSync().`);
}
