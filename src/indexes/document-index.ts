/**
 * `DocumentIndex`: a searchable knowledge base for the "search, then read" pattern. Documents are loaded and checked
 * (catalog/documents.ts), cut into passages (text/passages.ts), and every passage is indexed by the BM25F engine with
 * two fields, the document's title and the passage's text. A document scores by its best passages, so a match deep
 * inside a long article is found, and its snippet is cut from the best passage, near the first matching word.
 *
 * @example
 * ```ts
 * const docs = await DocumentIndex.fromFile("kb.jsonl");
 * await docs.search("refund", { limit: 5 });            // [{ id: "kb-refunds", title, score, snippet, offset }]
 * docs.read("kb-refunds", { offset: 0, maxChars: 4000 }); // { id, title, text, offset, total_chars }
 * ```
 */
import { checkDocument, checkDocuments, type Document, loadDocuments } from "../catalog/documents.js";
import type { EmbedProgress } from "../embeddings/provider.js";
import { HYBRID_CANDIDATES, needsAsync, type QueryVectors, querySentences, SemanticStore, type VectorState } from "../embeddings/semantic-store.js";
import { documentEmbeddingText } from "../embeddings/texts.js";
import { describeLocation, ToolsearchError, unknownName } from "../errors.js";
import { Bm25fIndex, type Bm25fOptions } from "../engines/bm25f.js";
import type { FusedHit, FusionInput } from "../engines/fusion.js";
import { compareRanked, type Ranked } from "../engines/top-k.js";
import { type Analyzer, createAnalyzer } from "../text/analyzer.js";
import { type Passage, safeCut, splitPassages } from "../text/passages.js";
import { makeSnippet, SNIPPET_CHARS } from "../text/snippet.js";
import { closestNames } from "../text/suggest.js";
import {
  DEFAULT_DOCUMENT_BM25, DEFAULT_PASSAGE_SCORING, DEFAULT_READ_CHARS, DOCUMENT_ENGINES, MAX_READ_CHARS,
  type DocumentEngine, type DocumentHit, type DocumentIndexOptions, type DocumentPage, type DocumentSearchOptions,
  type PassageScoring, type ReadOptions,
} from "./document-index-options.js";
import {
  analyzerSettings, bm25Sections, bm25State, checkAnalyzer, decodeSnapshot, encodeSnapshot, int32Section, invalid, savedVectors, textSection,
  type TextList, vectorParts,
} from "./snapshot.js";
import { checkLimit } from "./tool-index.js";
import {
  type ExplainedPart, type Explanation, type ExplainOptions, explainedParts, explainedSimilarity, explainedTerms, placeIn,
} from "./explain.js";

/**
 * A document with its passages. One loaded from a snapshot starts as its place `saved` in the snapshot's text lists
 * and becomes a `doc` when first needed (`docOf`).
 */
interface IndexedDocument {
  doc?: Document;
  saved?: number;
  passages: Passage[];
}

/** The text lists of the snapshot an index was loaded from, read as documents are first needed. */
interface SavedTexts {
  ids: string[];
  titles: TextList;
  bodies: TextList;
  urls: TextList;
}

/** Which document and which of its passages an engine id stands for. */
interface PassageRef {
  docId: string;
  n: number;
}

/** A document ranked by its passages, with the passage that scored best. */
interface RankedDocument extends Ranked {
  best: number;
}

export class DocumentIndex {
  readonly analyzer: Analyzer;
  private readonly documents = new Map<string, IndexedDocument>();
  private readonly owners = new Map<string, PassageRef>();
  private bm25: Bm25fIndex;
  private readonly options: DocumentIndexOptions;
  private readonly scoring: Required<PassageScoring>;
  /** Passage vectors for the `semantic` and `hybrid` engines, made on first use. */
  private readonly semantic: SemanticStore;
  /**
   * Set on an index loaded from a snapshot until a dense engine first needs it: the passages' embedding texts are
   * made then (and the saved vectors taken), so that a BM25-only service pays nothing for them at load.
   */
  private deferred: { vectors?: VectorState } | undefined;
  /** Set on an index loaded from a snapshot: where its documents' texts are, until each is first needed. */
  private saved: SavedTexts | undefined;

  constructor(documents: Document[] = [], options: DocumentIndexOptions = {}) {
    this.options = options;
    this.analyzer = createAnalyzer(options.analyzer);
    this.scoring = { ...DEFAULT_PASSAGE_SCORING, ...options.scoring };
    this.semantic = new SemanticStore(options.embedder, options.fusion);
    this.bm25 = new Bm25fIndex(this.bm25Options());
    for (const doc of documents) this.index(doc);
  }

  private bm25Options(): Bm25fOptions {
    const bm25 = this.options.bm25 ?? {};
    return {
      k1: bm25.k1 ?? DEFAULT_DOCUMENT_BM25.k1,
      fields: [
        { name: "title", ...DEFAULT_DOCUMENT_BM25.title, ...bm25.title },
        { name: "body", ...DEFAULT_DOCUMENT_BM25.body, ...bm25.body },
      ],
      fuzzy: bm25.fuzzy,
    };
  }

  /** Loads documents from JSONL (or a JSON/YAML list) or a folder of Markdown files. Refuses a bad set whole. */
  static async fromFile(path: string, options?: DocumentIndexOptions): Promise<DocumentIndex> {
    return new DocumentIndex(loadDocuments(path), options);
  }

  /** Builds an index from `{id, title, body, url?}` objects, checked as a file would be. */
  static async fromDocuments(documents: unknown[], options?: DocumentIndexOptions): Promise<DocumentIndex> {
    return new DocumentIndex(checkDocuments(documents), options);
  }

  /**
   * The built index as bytes: documents, their passages, BM25 postings and any vectors made so far.
   * `DocumentIndex.fromSnapshot` loads it without cutting or analyzing any text (as `ToolIndex.snapshot` does).
   * Texts, ids and terms go in string-list sections, not in the JSON header: a large knowledge base then loads
   * without parsing its whole text as JSON.
   */
  snapshot(): Buffer {
    this.undefer();
    const docs = [...this.documents.values()].map((entry) => this.docOf(entry));
    const vectors = vectorParts(this.semantic.exportVectors());
    const header = {
      kind: "docs",
      analyzer: analyzerSettings(this.options.analyzer),
      passageChars: this.options.passages?.maxChars ?? null,
      vectors: vectors.header,
    };
    return encodeSnapshot(header, {
      ...bm25Sections(this.bm25.exportState(), true),
      ...this.passageSections(),
      docIds: docs.map((doc) => doc.id),
      docTitles: docs.map((doc) => doc.title),
      docBodies: docs.map((doc) => doc.body),
      docUrls: docs.map((doc) => doc.url ?? ""),
      ...vectors.sections,
    });
  }

  /** Each document's passage count, and every passage's start and end, in document order. */
  private passageSections(): { counts: Int32Array; ranges: Int32Array } {
    const counts = Int32Array.from(this.documents.values(), (entry) => entry.passages.length);
    const ranges = new Int32Array(counts.reduce((sum, n) => sum + n, 0) * 2);
    let at = 0;
    for (const entry of this.documents.values()) for (const p of entry.passages) (ranges[at++] = p.start), (ranges[at++] = p.end);
    return { counts, ranges };
  }

  /**
   * Loads a `snapshot()`. `options` are those of the constructor: BM25 weights, scoring, fusion and the embedder may
   * differ from the saved index's; the analyzer and the passage length may not (`snapshot_invalid`). A snapshot of an
   * earlier release (documents in its header) is refused the same way, and a service rebuilds it from its items.
   */
  static fromSnapshot(snapshot: Uint8Array, options: DocumentIndexOptions = {}): DocumentIndex {
    const index = new DocumentIndex([], options);
    index.loadSnapshot(snapshot);
    return index;
  }

  private loadSnapshot(snapshot: Uint8Array): void {
    const { header, sections } = decodeSnapshot(snapshot, "docs");
    checkAnalyzer(header.analyzer, analyzerSettings(this.options.analyzer));
    const passageChars = this.options.passages?.maxChars ?? null;
    if (header.passageChars !== passageChars) throw invalid(`its passages were cut at ${header.passageChars ?? "the default"} characters, these options cut at ${passageChars ?? "the default"}`);
    if (!sections.docIds && header.documents) throw invalid("it was written by an earlier release, which kept documents in its header; rebuild it");
    const [idList, titles, bodies, urls] = ["docIds", "docTitles", "docBodies", "docUrls"].map((name) => textSection(sections, name));
    const ids = idList.all();
    const counts = int32Section(sections, "counts");
    const ranges = int32Section(sections, "ranges");
    if (counts.length !== ids.length || titles.length !== ids.length || bodies.length !== ids.length || urls.length !== ids.length) {
      throw invalid("its documents, titles, bodies and passage counts differ in number");
    }
    try {
      this.bm25 = Bm25fIndex.fromState(this.bm25Options(), bm25State(header, sections));
    } catch (error) {
      throw error instanceof ToolsearchError ? error : invalid((error as Error).message);
    }
    let at = 0;
    ids.forEach((id, d) => {
      const passages: Passage[] = [];
      for (let n = 0; n < counts[d]; n++, at += 2) {
        passages.push({ start: ranges[at], end: ranges[at + 1] });
        this.owners.set(passageKey(id, n), { docId: id, n });
      }
      this.documents.set(id, { saved: d, passages });
    });
    this.saved = { ids, titles, bodies, urls };
    this.deferred = { vectors: savedVectors(header, sections) };
  }

  /** An entry's document, read from the snapshot's texts the first time for an index loaded from one. */
  private docOf(entry: IndexedDocument): Document {
    if (entry.doc) return entry.doc;
    const d = entry.saved!;
    const { ids, titles, bodies, urls } = this.saved!;
    const doc: Document = { id: ids[d], title: titles.get(d), body: bodies.get(d) };
    const url = urls.get(d);
    if (url) doc.url = url;
    entry.doc = doc;
    return doc;
  }

  /** Makes what a restored index deferred (see `deferred`); a no-op once done or for a built index. */
  private undefer(): void {
    if (!this.deferred) return;
    const { vectors } = this.deferred;
    this.deferred = undefined;
    for (const entry of this.documents.values()) {
      const { passages } = entry;
      const doc = this.docOf(entry);
      passages.forEach((p, n) => this.semantic.set(passageKey(doc.id, n), documentEmbeddingText(doc.title, doc.body.slice(p.start, p.end))));
    }
    if (vectors) this.semantic.importVectors(vectors);
  }

  /**
   * Bytes this index holds in memory, roughly: its texts (two bytes per UTF-16 unit; for an index loaded from a
   * snapshot, the snapshot's bytes its texts are read from, plus the documents read so far), its BM25 postings and
   * passage tables (counted per entry), and its passages' embedding texts and vectors (`SemanticStore.memoryBytes`;
   * with USE lite about 2.6 KB per passage). Used to keep a service's loaded collections within a memory budget.
   */
  memoryBytes(): number {
    let bytes = this.bm25.memoryBytes() + (this.saved?.bodies.retainedBytes ?? 0) + this.semantic.memoryBytes();
    for (const { doc, passages } of this.documents.values()) {
      bytes += (doc ? 2 * (doc.id.length + doc.title.length + doc.body.length) : 0) + 64 + passages.length * 96;
    }
    return bytes;
  }

  /**
   * Embedding texts and vectors held (`SemanticStore.entries`): vectors are made on the first dense search, so a
   * size counted by `memoryBytes` at another value is stale.
   */
  get semanticEntries(): number {
    return this.semantic.entries;
  }

  /** Number of documents. */
  get size(): number {
    return this.documents.size;
  }

  /** Number of indexed passages. */
  get passageCount(): number {
    return this.owners.size;
  }

  /** All document ids, in load order. */
  ids(): string[] {
    return [...this.documents.keys()];
  }

  /** A document, or undefined. */
  get(id: string): Document | undefined {
    const entry = this.documents.get(id);
    return entry && this.docOf(entry);
  }

  /** Like `get`, but an unknown id throws `unknown_document`, pointing back to search and naming close ids. */
  require(id: string): Document {
    const entry = this.documents.get(id) ?? this.documents.get(id.trim());
    if (!entry) throw unknownName("unknown_document", id, this.closestIds(id));
    return this.docOf(entry);
  }

  /** Ids close to `id`, closest first. */
  closestIds(id: string, max = 3): string[] {
    return closestNames(id.trim(), this.documents.keys(), max);
  }

  /** Adds a document; throws `documents_invalid` for a bad document or an id already present. */
  add(document: unknown): void {
    const doc = this.check(document);
    if (this.documents.has(doc.id)) {
      throw new ToolsearchError("documents_invalid", `Document ${JSON.stringify(doc.id)} is already in the index: use replace() to change it.`);
    }
    this.index(doc);
  }

  /** Replaces the document with the same id, or adds it when absent. Only that document is re-indexed. */
  replace(document: unknown): void {
    const doc = this.check(document);
    this.remove(doc.id);
    this.index(doc);
  }

  /** Removes a document; returns false when there was none with that id. */
  remove(id: string): boolean {
    const entry = this.documents.get(id);
    if (!entry) return false;
    entry.passages.forEach((_, n) => {
      const key = passageKey(id, n);
      this.bm25.remove(key);
      this.semantic.delete(key);
      this.owners.delete(key);
    });
    this.documents.delete(id);
    return true;
  }

  /** Searches the documents; see `DocumentSearchOptions`. */
  async search(query: string, options: DocumentSearchOptions = {}): Promise<DocumentHit[]> {
    const engine = options.engine ?? "bm25";
    if (engine !== "semantic" && engine !== "hybrid") return this.searchSync(query, options);
    const limit = checkLimit(options.limit);
    this.undefer();
    await this.semantic.prepare();
    const vector = await this.semantic.embedQuery(query);
    const terms = this.analyzer.analyze(query);
    const lexical = (fetch: number) => this.bm25.search(terms, Math.max(fetch, HYBRID_CANDIDATES), { fuzzy: options.fuzzy });
    const ranked = this.rankDocuments(
      (fetch) => (engine === "semantic" ? this.semantic.rankDense(vector, fetch) : this.semantic.rankHybrid(lexical(fetch), vector, fetch)),
      limit,
    );
    const isMatch = this.matcher(terms, options.fuzzy !== false);
    return ranked.map((hit) => this.toHit(hit, isMatch));
  }

  /** Embeds every passage that has no vector yet (cached vectors are reused); see `ToolIndex.prepareEmbeddings`. */
  async prepareEmbeddings(onProgress?: EmbedProgress): Promise<void> {
    this.undefer();
    await this.semantic.prepare(onProgress);
  }

  /** `search` without the promise, for the engines that need no I/O (`bm25`). */
  searchSync(query: string, options: DocumentSearchOptions = {}): DocumentHit[] {
    const limit = checkLimit(options.limit);
    const engine = options.engine ?? "bm25";
    const terms = this.analyzer.analyze(query);
    const ranked = this.rankDocuments((fetch) => this.rankPassages(engine, terms, fetch, options), limit);
    if (ranked.length === 0) return [];
    const isMatch = this.matcher(terms, options.fuzzy !== false);
    return ranked.map((hit) => this.toHit(hit, isMatch));
  }

  /**
   * One page of a document's text. Pages end at white space when one is near the end of the window and never split a
   * surrogate pair; `next_offset` is where the next page starts. An unknown id throws `unknown_document`.
   */
  read(id: string, options: ReadOptions = {}): DocumentPage {
    const doc = this.require(id);
    const total = doc.body.length;
    const offset = checkWhole("offset", options.offset ?? 0, 0, Number.MAX_SAFE_INTEGER);
    const maxChars = checkWhole("maxChars", options.maxChars ?? DEFAULT_READ_CHARS, 1, MAX_READ_CHARS);
    if (offset > total) {
      throw new ToolsearchError("invalid_option", `offset ${offset} is past the end of ${JSON.stringify(doc.id)} (total_chars ${total}); read from offset 0.`);
    }
    const start = safeCut(doc.body, offset);
    const end = pageEnd(doc.body, start, maxChars);
    const page: DocumentPage = { id: doc.id, title: doc.title, text: doc.body.slice(start, end), offset: start, total_chars: total };
    if (end < total) page.next_offset = end;
    if (doc.url) page.url = doc.url;
    return page;
  }

  /**
   * Why document `id` ranks where it does for `query` (see `Explanation`): its rank among every matching document,
   * the passages its score is made of (each with its weight; by default the best passage alone), and, per engine,
   * the terms, similarity or fusion shares of those passages, weighted so that they add up to the score. The ranking
   * explained is the complete one; `hybrid` fuses the first 50 passages of each engine, as a search for up to 12
   * documents does. An unknown id throws `unknown_document`.
   *
   * @example
   * ```ts
   * const why = await docs.explain("refund a card payment", "kb-refunds");
   * why.rank; why.passages; why.terms; // 1, [{ passage: 0, offset: 0, score, weight: 1 }], [{ term: "refund", field: "title", … }]
   * ```
   */
  async explain(query: string, id: string, options: ExplainOptions<DocumentEngine> = {}): Promise<Explanation> {
    this.require(id);
    const engine = options.engine ?? "bm25";
    const terms = this.analyzer.analyze(query);
    const fuzzy = { fuzzy: options.fuzzy };
    if (!DOCUMENT_ENGINES.includes(engine)) this.rankPassages(engine, terms, 1, options); // throws unknown_engine
    let passages: Ranked[] = [];
    let fused: FusedHit[] | undefined;
    let vectors: QueryVectors | undefined;
    let input: FusionInput | undefined;
    if (engine === "bm25") passages = this.bm25.search(terms, Math.max(1, this.owners.size), fuzzy);
    else {
      this.undefer();
      await this.semantic.prepare();
      vectors = await this.semantic.embedQuery(query);
      if (engine === "semantic") passages = this.semantic.rankDense(vectors, Math.max(1, this.owners.size));
      else ({ fused, input } = this.semantic.explainHybrid(this.bm25.search(terms, HYBRID_CANDIDATES, fuzzy), vectors));
    }
    const ranking = this.rankDocuments(() => fused ?? passages, this.size);
    const counted = this.countedPassages(fused ?? passages, id);
    const out: Explanation = { name: id, engine, query, ...placeIn(ranking, id), passages: counted.map((p) => ({ ...p, offset: this.passageStart(id, p.passage) })) };
    if (engine !== "semantic") {
      out.terms = counted.flatMap((p) => explainedTerms(this.bm25.explain(terms, passageKey(id, p.passage), fuzzy), p.weight, p.passage));
    }
    if (vectors) {
      const best = counted[0]?.passage ?? 0;
      out.semantic = explainedSimilarity(querySentences(query), this.semantic.sentenceScores(passageKey(id, best), vectors));
    }
    if (fused && input) out.parts = this.weightedParts(counted, fused, input, id);
    return out;
  }

  /** The passages of `id` that count in its score, best first, with the weight each counts by. */
  private countedPassages(ranking: Ranked[], id: string): { passage: number; score: number; weight: number }[] {
    const { decay, passages: counted } = this.scoring;
    return ranking
      .filter((hit) => this.owners.get(hit.id)!.docId === id)
      .slice(0, counted)
      .map((hit, i) => ({ passage: this.owners.get(hit.id)!.n, score: hit.score, weight: decay ** i }))
      .filter((p) => p.weight > 0); // with decay 0 only the best passage counts
  }

  private passageStart(id: string, n: number): number {
    return this.documents.get(id)!.passages[n]?.start ?? 0;
  }

  /** The hybrid parts of a document: its counted passages' parts, weighted; raw scores are the best passage's. */
  private weightedParts(counted: { passage: number; weight: number }[], fused: FusedHit[], input: FusionInput, id: string): ExplainedPart[] {
    const byKey = new Map(fused.map((hit) => [hit.id, hit]));
    const best = passageKey(id, counted[0]?.passage ?? 0);
    const parts = explainedParts(byKey.get(best), input, best).map((p) => ({ ...p, contribution: 0 }));
    for (const { passage, weight } of counted) {
      const hit = byKey.get(passageKey(id, passage));
      parts[0].contribution += (hit?.lexical ?? 0) * weight;
      parts[1].contribution += (hit?.dense ?? 0) * weight;
    }
    return parts;
  }

  /** Words worth suggesting when a query finds nothing: vocabulary terms near the query's words. */
  suggest(query: string, max = 5): string[] {
    const terms = this.analyzer.analyze(query).flatMap((t) => this.bm25.nearTerms(t, 2).map((e) => e.term));
    return [...new Set(terms)].slice(0, max);
  }

  /** The one place engines are dispatched: ranked passage keys for a query, best first. */
  private rankPassages(engine: DocumentEngine, terms: string[], fetch: number, options: DocumentSearchOptions): Ranked[] {
    if (engine === "bm25") return this.bm25.search(terms, fetch, { fuzzy: options.fuzzy });
    if (engine === "semantic" || engine === "hybrid") throw needsAsync(engine);
    throw new ToolsearchError("unknown_engine", `Unknown engine ${JSON.stringify(engine)} for documents: use ${DOCUMENT_ENGINES.join(", ")}.`);
  }

  /**
   * Documents ranked by their best passages. Passages are fetched in growing batches until `limit` distinct
   * documents are seen (or every match is), so a document with many good passages cannot crowd out the others.
   */
  private rankDocuments(rank: (fetch: number) => Ranked[], limit: number): RankedDocument[] {
    const { decay, passages: counted } = this.scoring;
    let fetch = Math.max(limit * 4, 20);
    for (;;) {
      const hits = rank(fetch);
      const byDoc = new Map<string, RankedDocument & { counted: number }>();
      for (const hit of hits) {
        const owner = this.owners.get(hit.id)!;
        const entry = byDoc.get(owner.docId);
        if (!entry) byDoc.set(owner.docId, { id: owner.docId, score: hit.score, best: owner.n, counted: 1 });
        else if (entry.counted < counted) entry.score += hit.score * decay ** entry.counted++;
      }
      if (byDoc.size >= limit || hits.length < fetch || fetch >= this.owners.size) {
        return [...byDoc.values()].sort(compareRanked).slice(0, limit);
      }
      fetch *= 4;
    }
  }

  /** Whether a word of a text matches the query: one of its terms is a query term or a near term of one. */
  private matcher(terms: string[], fuzzy: boolean): (word: string) => boolean {
    const wanted = new Set<string>();
    for (const term of terms) {
      if (this.bm25.hasTerm(term) || !fuzzy) wanted.add(term);
      else for (const near of this.bm25.nearTerms(term)) wanted.add(near.term);
    }
    return (word) => this.analyzer.analyze(word).some((t) => wanted.has(t));
  }

  private toHit(hit: RankedDocument, isMatch: (word: string) => boolean): DocumentHit {
    const entry = this.documents.get(hit.id)!;
    const { passages } = entry;
    const doc = this.docOf(entry);
    const maxChars = this.options.snippetChars ?? SNIPPET_CHARS;
    const { snippet, offset } = makeSnippet(doc.body, passages[hit.best], isMatch, { maxChars });
    const out: DocumentHit = { id: doc.id, title: doc.title, score: hit.score, snippet: snippet || doc.title, offset };
    if (doc.url) out.url = doc.url;
    return out;
  }

  private check(document: unknown): Document {
    const result = checkDocument(document, this.documents.size);
    if ("problem" in result) {
      const p = result.problem;
      throw new ToolsearchError("documents_invalid", `${describeLocation({ name: p.name }) || "document"}: ${p.message}`, { problems: [p] });
    }
    return result;
  }

  private index(doc: Document): void {
    const passages = splitPassages(doc.body, this.options.passages);
    const title = this.analyzer.analyze(doc.title);
    this.documents.set(doc.id, { doc, passages });
    passages.forEach((passage, n) => {
      const key = passageKey(doc.id, n);
      this.owners.set(key, { docId: doc.id, n });
      const text = doc.body.slice(passage.start, passage.end);
      this.bm25.add(key, [title, this.analyzer.analyze(text)]);
      this.semantic.set(key, documentEmbeddingText(doc.title, text));
    });
  }
}

/** The engine id of passage `n` of a document. Engines only see these; `owners` maps them back. */
function passageKey(docId: string, n: number): string {
  return `${docId}#${n}`;
}

/** Where a page that starts at `start` ends: at most `maxChars` on, at white space when one is near the end. */
function pageEnd(text: string, start: number, maxChars: number): number {
  const limit = start + maxChars;
  if (limit >= text.length) return text.length;
  const floor = start + Math.floor(maxChars * 0.8);
  for (let i = limit; i > floor; i--) if (/\s/.test(text[i - 1])) return i;
  const end = safeCut(text, limit);
  return end > start ? end : Math.min(text.length, start + 2); // a window of one code unit still moves on
}

function checkWhole(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ToolsearchError("invalid_option", `${name} must be a whole number from ${min} to ${max} (got ${value}).`);
  }
  return value;
}
