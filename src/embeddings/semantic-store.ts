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

export class SemanticStore {
  private embedder: Embedder | undefined;
  private vectors: VectorIndex | undefined;
  private readonly texts = new Map<string, string>();
  private readonly embeddedTexts = new Map<string, string>();
  private readonly stale = new Set<string>();
  /** The same for the items' names: a second vector per item, of its name alone. */
  private nameVectors: VectorIndex | undefined;
  private readonly names = new Map<string, string>();
  private readonly embeddedNames = new Map<string, string>();
  private readonly staleNames = new Set<string>();
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
    this.texts.set(id, text);
    if (this.embeddedTexts.get(id) === text) this.stale.delete(id);
    else this.stale.add(id);
    if (!name) {
      this.names.delete(id);
      this.embeddedNames.delete(id);
      this.staleNames.delete(id);
      this.nameVectors?.remove(id);
    } else {
      this.names.set(id, name);
      if (this.embeddedNames.get(id) === name) this.staleNames.delete(id);
      else this.staleNames.add(id);
    }
  }

  delete(id: string): void {
    this.texts.delete(id);
    this.embeddedTexts.delete(id);
    this.stale.delete(id);
    this.names.delete(id);
    this.embeddedNames.delete(id);
    this.staleNames.delete(id);
    this.nameVectors?.remove(id);
    if (this.vectors?.remove(id)) this.vectorsChanged();
  }

  /** Number of items with a vector. */
  get vectorCount(): number {
    return this.vectors?.size ?? 0;
  }

  /** Number of items with a vector of their name. */
  get nameVectorCount(): number {
    return this.nameVectors?.size ?? 0;
  }

  /**
   * Entries it holds (texts, vectors and name vectors): `memoryBytes` moves with it, so a size counted at another
   * value is stale (vectors are made lazily, long after an index is built or loaded).
   */
  get entries(): number {
    return this.texts.size + this.vectorCount + this.nameVectorCount;
  }

  /**
   * Bytes it holds: its vector indexes (`VectorIndex.memoryBytes`), the texts and names it embeds as UTF-16 with a map
   * entry each, and a map entry per text and name already embedded (those strings are the same ones).
   */
  memoryBytes(): number {
    let bytes = (this.vectors?.memoryBytes ?? 0) + (this.nameVectors?.memoryBytes ?? 0);
    for (const text of this.texts.values()) bytes += ENTRY_BYTES + 2 * text.length;
    for (const name of this.names.values()) bytes += ENTRY_BYTES + 2 * name.length;
    return bytes + ENTRY_BYTES * (this.embeddedTexts.size + this.embeddedNames.size + this.stale.size + this.staleNames.size);
  }

  /** Number of items still waiting for a vector (of their text or of their name). */
  get pending(): number {
    if (this.staleNames.size === 0) return this.stale.size;
    let names = 0;
    for (const id of this.staleNames) if (!this.stale.has(id)) names++;
    return this.stale.size + names;
  }

  /** Embeds every item that needs it (from the cache where possible). Concurrent calls share one run. */
  async prepare(onProgress?: EmbedProgress): Promise<void> {
    while (this.stale.size > 0 || this.staleNames.size > 0) {
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
    return this.nameVectors?.maxScores(ids, query) ?? ids.map(() => undefined);
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
    if (!this.vectors || this.vectors.size === 0) return undefined;
    const { ids, vectors } = this.vectors.exportRows();
    const state: VectorState = { embedder: this.embedder!.id, dimensions: this.vectors.dimensions, ids, texts: ids.map((id) => this.embeddedTexts.get(id)!), vectors };
    if (this.nameVectors && this.nameVectors.size > 0) {
      const names = this.nameVectors.exportRows();
      state.names = { ids: names.ids, texts: names.ids.map((id) => this.embeddedNames.get(id)!), vectors: names.vectors };
    }
    return state;
  }

  /**
   * Takes vectors from a snapshot: each one whose item still embeds the same text, when the provider is the one this
   * store uses (USE lite when none was given). Anything else stays to be embedded as usual; returns how many fit.
   */
  importVectors(state: VectorState): number {
    if (state.embedder !== (this.embedder?.id ?? USE_LITE_ID)) return 0;
    this.vectors ??= new VectorIndex(state.dimensions, Math.max(state.ids.length, this.texts.size));
    let taken = 0;
    this.vectorsChanged();
    state.ids.forEach((id, i) => {
      if (this.texts.get(id) !== state.texts[i]) return;
      this.vectors!.set(id, state.vectors.subarray(i * state.dimensions, (i + 1) * state.dimensions));
      this.embeddedTexts.set(id, state.texts[i]);
      this.stale.delete(id);
      taken++;
    });
    const names = state.names;
    if (names) {
      this.nameVectors ??= new VectorIndex(state.dimensions, Math.max(names.ids.length, this.names.size));
      names.ids.forEach((id, i) => {
        if (this.names.get(id) !== names.texts[i]) return;
        this.nameVectors!.set(id, names.vectors.subarray(i * state.dimensions, (i + 1) * state.dimensions));
        this.embeddedNames.set(id, names.texts[i]);
        this.staleNames.delete(id);
      });
    }
    return taken;
  }

  private async embedStale(onProgress?: EmbedProgress): Promise<void> {
    const ids = [...this.stale];
    const texts = ids.map((id) => this.texts.get(id)!);
    const nameIds = [...this.staleNames];
    const names = nameIds.map((id) => this.names.get(id)!);
    const embedder = this.getEmbedder();
    // Names and texts in one batch: one pass through the cache and the provider.
    const vectors = await embedder.embedMany([...texts, ...names], onProgress);
    if (ids.length > 0) {
      this.vectors ??= new VectorIndex(embedder.dimensions, this.texts.size);
      this.vectorsChanged();
    }
    ids.forEach((id, i) => {
      // Skip items removed or changed while their vectors were being made; a changed one is still stale.
      if (this.texts.get(id) !== texts[i]) return;
      this.vectors!.set(id, vectors[i]);
      this.embeddedTexts.set(id, texts[i]);
      this.stale.delete(id);
    });
    if (nameIds.length > 0) this.nameVectors ??= new VectorIndex(embedder.dimensions, this.names.size);
    nameIds.forEach((id, i) => {
      if (this.names.get(id) !== names[i]) return;
      this.nameVectors!.set(id, vectors[texts.length + i]);
      this.embeddedNames.set(id, names[i]);
      this.staleNames.delete(id);
    });
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
