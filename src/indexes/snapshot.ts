/**
 * The file format of index snapshots: a built index saved so that it loads without analyzing any text again.
 *
 * Layout: the 8 bytes `TSSNAP01`, a little-endian u32 with the byte length of a JSON header, the header, then
 * sections, each starting on a 4-byte boundary. The header says what the index holds (`kind`), the settings its terms
 * depend on, its items, and where each section lies. Typed-array sections are read in place when the buffer is aligned
 * (a file read whole is), so a large posting list costs no copy.
 *
 * Format 2 adds string-list sections: bulk text (a knowledge base's bodies, ids, terms) kept as UTF-8 rather than in
 * the JSON header, because parsing tens of megabytes of JSON was most of a document snapshot's load. A snapshot
 * without string lists is still written as format 1, byte for byte as before.
 */
import type { VectorState } from "../embeddings/semantic-store.js";
import type { Bm25fState } from "../engines/bm25f.js";
import { ToolsearchError } from "../errors.js";
import type { AnalyzerOptions } from "../text/analyzer.js";

const MAGIC = "TSSNAP01";
/**
 * Formats this version reads; it writes 2 only when a snapshot has string lists, and 3 when its kind says so (a
 * layout an older reader must refuse rather than misread: tool snapshots keep their tools in sections since 3).
 */
const FORMATS = [1, 2, 3];

/** A section of a snapshot: typed numbers, or a list of strings (written as `string[]`, read as a `TextList`). */
export type Section = Int32Array | Float32Array | string[] | TextList;

/**
 * A string-list section as read: each string is decoded from its UTF-8 bytes when asked for, so a large knowledge
 * base's bodies cost nothing at load (and no JavaScript heap) until a search hit or a read needs one of them. It keeps
 * the snapshot's bytes alive.
 */
export class TextList {
  constructor(private readonly bytes: Buffer, private readonly ends: Int32Array, private readonly start: number) {}

  get length(): number {
    return this.ends.length;
  }

  /** The bytes it keeps alive (the whole snapshot's, which it is a view into). */
  get retainedBytes(): number {
    return this.bytes.buffer.byteLength;
  }

  get(i: number): string {
    return this.bytes.toString("utf8", this.start + (i === 0 ? 0 : this.ends[i - 1]), this.start + this.ends[i]);
  }

  all(): string[] {
    const out = new Array<string>(this.ends.length);
    for (let i = 0; i < out.length; i++) out[i] = this.get(i);
    return out;
  }
}

interface SectionEntry {
  type: "i32" | "f32" | "str";
  offset: number;
  /** Elements for number sections, bytes for a string list. */
  length: number;
}

/** What every snapshot header holds besides the index's own fields. */
export interface SnapshotHeader {
  kind: string;
  /** The analysis the indexed terms came from; a loader with other settings would not find them. */
  analyzer: AnalyzerSettings;
  [field: string]: unknown;
}

/** The parts of `AnalyzerOptions` that decide which terms a text gives. */
export interface AnalyzerSettings {
  stopwords: boolean | string[];
  stem: boolean;
  /** Custom filters cannot be compared; their count is recorded so that a loader without them is refused. */
  filters: number;
}

export function analyzerSettings(options: AnalyzerOptions = {}): AnalyzerSettings {
  const stopwords = options.stopwords instanceof Set ? [...options.stopwords].sort() : options.stopwords !== false;
  return { stopwords, stem: options.stem !== false, filters: options.filters?.length ?? 0 };
}

/** Packs a header and sections into one buffer (as `format` when given, else the lowest format that holds them). */
export function encodeSnapshot(header: SnapshotHeader, sections: Record<string, Section | undefined>, format?: number): Buffer {
  const table: Record<string, SectionEntry> = {};
  const bytes: Record<string, Uint8Array> = {};
  let offset = 0;
  for (const [name, data] of Object.entries(sections)) {
    if (data === undefined) continue;
    if (data instanceof TextList) throw new Error("encodeSnapshot: give string lists as arrays");
    const raw = Array.isArray(data) ? encodeStrings(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const type = Array.isArray(data) ? "str" : data instanceof Float32Array ? "f32" : "i32";
    table[name] = { type, offset, length: type === "str" ? raw.length : (data as Int32Array | Float32Array).length };
    bytes[name] = raw;
    offset = align(offset + raw.length);
  }
  const written = format ?? (Object.values(table).some((entry) => entry.type === "str") ? 2 : 1);
  const json = Buffer.from(JSON.stringify({ format: written, ...header, sections: table }), "utf8");
  const start = align(8 + 4 + json.length);
  const out = Buffer.alloc(start + offset);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt32LE(json.length, 8);
  json.copy(out, 12);
  for (const [name, raw] of Object.entries(bytes)) out.set(raw, start + table[name].offset);
  return out;
}

/** Reads a buffer made by `encodeSnapshot`; throws `snapshot_invalid` for anything else or another `kind`. */
export function decodeSnapshot(buffer: Uint8Array, kind: string): { header: SnapshotHeader; sections: Record<string, Section> } {
  const bytes = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  if (bytes.length < 12 || bytes.toString("latin1", 0, 8) !== MAGIC) throw invalid("it does not start like a toolsearch snapshot");
  const length = bytes.readUInt32LE(8);
  if (12 + length > bytes.length) throw invalid("it is cut short");
  let header: SnapshotHeader & { format?: number; sections?: Record<string, SectionEntry> };
  try {
    header = JSON.parse(bytes.toString("utf8", 12, 12 + length));
  } catch {
    throw invalid("its header is not valid JSON");
  }
  if (!FORMATS.includes(header.format!)) throw invalid(`it has format ${header.format}, this version reads formats ${FORMATS.join(" and ")}`);
  if (header.kind !== kind) throw invalid(`it holds a ${header.kind} index, not a ${kind} index`);
  const start = align(12 + length);
  const sections: Record<string, Section> = {};
  for (const [name, entry] of Object.entries(header.sections ?? {})) {
    const end = start + entry.offset + (entry.type === "str" ? entry.length : entry.length * 4);
    if (end > bytes.length) throw invalid(`its section ${name} is cut short`);
    if (entry.type === "str") sections[name] = decodeStrings(bytes.subarray(start + entry.offset, end), name);
    else if (entry.type === "f32") sections[name] = numbers(Float32Array, bytes, start + entry.offset, entry.length);
    else sections[name] = numbers(Int32Array, bytes, start + entry.offset, entry.length);
  }
  return { header, sections };
}

/** `length` numbers at byte `at` of `bytes`: a view in place when aligned, else a copy (typed arrays need alignment). */
function numbers<T extends Int32Array | Float32Array>(View: { new (buffer: ArrayBuffer, offset?: number, length?: number): T }, bytes: Buffer, at: number, length: number): T {
  const from = bytes.byteOffset + at;
  if (from % 4 === 0) return new View(bytes.buffer as ArrayBuffer, from, length);
  return new View(new Uint8Array(bytes.buffer, from, length * 4).slice().buffer);
}

/** A string list as section bytes: its i32 count, the i32 end of each string's UTF-8 bytes, then those bytes. */
function encodeStrings(list: string[]): Uint8Array {
  const texts = list.map((text) => Buffer.from(text, "utf8"));
  const ends = new Int32Array(1 + list.length);
  ends[0] = list.length;
  texts.forEach((text, i) => (ends[i + 1] = (i === 0 ? 0 : ends[i]) + text.length));
  return Buffer.concat([new Uint8Array(ends.buffer), ...texts]);
}

/** Reads `encodeStrings` bytes as a `TextList`; `snapshot_invalid` naming the section when they do not add up. */
function decodeStrings(bytes: Buffer, name: string): TextList {
  const bad = () => invalid(`its string section ${name} is damaged`);
  const count = bytes.length >= 4 ? bytes.readInt32LE(0) : -1;
  if (count < 0 || 4 + count * 4 > bytes.length) throw bad();
  const ends = numbers(Int32Array, bytes, 4, count);
  const room = bytes.length - 4 - count * 4;
  for (let i = 0, last = 0; i < count; last = ends[i++]) if (ends[i] < last || ends[i] > room) throw bad();
  return new TextList(bytes, ends, 4 + count * 4);
}

/** A string-list section; `snapshot_invalid` naming it when it is missing. */
export function textSection(sections: Record<string, Section>, name: string): TextList {
  if (!(sections[name] instanceof TextList)) throw invalid(`its section ${name} is missing`);
  return sections[name] as TextList;
}

/** A section that must hold 32-bit integers; `snapshot_invalid` naming it when it is missing. */
export function int32Section(sections: Record<string, Section>, name: string): Int32Array {
  if (!(sections[name] instanceof Int32Array)) throw invalid(`its section ${name} is missing`);
  return sections[name] as Int32Array;
}

/**
 * The sections of a BM25 state: its numbers, and (with `strings`) its ids and terms as string lists rather than in
 * the header; a free slot's id is then "" (`bm25State` reads either).
 */
export function bm25Sections(state: Bm25fState & { terms: string[] }, strings: boolean): Record<string, Section> {
  const numbers = { lengths: state.lengths, offsets: state.offsets, slots: state.slots, tfs: state.tfs };
  return strings ? { ...numbers, bm25Ids: state.ids.map((id) => id ?? ""), bm25Terms: state.terms } : numbers;
}

/**
 * The BM25 state an index snapshot holds (`bm25Sections`, with ids and terms in the header `bm25` or in sections; terms
 * from a section stay undecoded until the index first looks one up).
 */
export function bm25State(header: SnapshotHeader, sections: Record<string, Section>): Bm25fState {
  const i32 = (name: string) => int32Section(sections, name);
  const bm25 = sections.bm25Ids
    ? { ids: textSection(sections, "bm25Ids").all().map((id) => id || null), terms: textSection(sections, "bm25Terms") }
    : (header.bm25 as { ids: (string | null)[]; terms: string[] } | undefined);
  if (!bm25) throw invalid("it holds no BM25 ids and terms");
  return { ...bm25, lengths: i32("lengths"), offsets: i32("offsets"), slots: i32("slots"), tfs: i32("tfs") };
}

/** The header part and sections of saved vectors, with their ids and texts as string lists (`savedVectors` reads them). */
export function vectorParts(state: VectorState | undefined): { header?: Pick<VectorState, "embedder" | "dimensions">; sections: Record<string, Section> } {
  if (!state) return { sections: {} };
  const sections: Record<string, Section> = { vectors: state.vectors, vectorIds: state.ids, vectorTexts: state.texts };
  if (state.names) Object.assign(sections, { nameVectors: state.names.vectors, nameVectorIds: state.names.ids, nameVectorTexts: state.names.texts });
  return { header: { embedder: state.embedder, dimensions: state.dimensions }, sections };
}

/** The vectors an index snapshot holds (ids and texts in the header or, from `vectorParts`, in sections), or undefined. */
export function savedVectors(header: SnapshotHeader, sections: Record<string, Section>): VectorState | undefined {
  const vectors = header.vectors as Omit<VectorState, "vectors"> | undefined;
  if (!vectors || !(sections.vectors instanceof Float32Array)) return undefined;
  const listed = sections.vectorIds ? { ids: textSection(sections, "vectorIds").all(), texts: textSection(sections, "vectorTexts").all() } : {};
  // Name vectors (snapshots written before they existed have none: the names are then embedded on first need).
  const names = sections.nameVectors instanceof Float32Array && sections.nameVectorIds
    ? { names: { ids: textSection(sections, "nameVectorIds").all(), texts: textSection(sections, "nameVectorTexts").all(), vectors: sections.nameVectors } }
    : {};
  return { ...vectors, ...listed, ...names, vectors: sections.vectors };
}

/** Refuses a snapshot made with other analysis settings than the loader's. */
export function checkAnalyzer(stored: AnalyzerSettings, current: AnalyzerSettings): void {
  if (JSON.stringify(stored) !== JSON.stringify(current)) {
    throw invalid(`it was built with other analyzer settings (${JSON.stringify(stored)}) than these (${JSON.stringify(current)}); rebuild it`);
  }
}

export function invalid(reason: string): ToolsearchError {
  return new ToolsearchError("snapshot_invalid", `Cannot load the index snapshot: ${reason}.`);
}

function align(n: number): number {
  return Math.ceil(n / 4) * 4;
}
