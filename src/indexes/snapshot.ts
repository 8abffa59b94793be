/**
 * The file format of index snapshots: a built index saved so that it loads without analyzing any text again.
 *
 * Layout: the 8 bytes `TSSNAP01`, a little-endian u32 with the byte length of a JSON header, the header, then
 * typed-array sections, each starting on a 4-byte boundary. The header says what the index holds (`kind`), the
 * settings its terms depend on, its items, and where each section lies. Sections are read in place when the buffer
 * is aligned (a file read whole is), so a large posting list costs no copy.
 */
import type { VectorState } from "../embeddings/semantic-store.js";
import type { Bm25fState } from "../engines/bm25f.js";
import { ToolsearchError } from "../errors.js";
import type { AnalyzerOptions } from "../text/analyzer.js";

const MAGIC = "TSSNAP01";
const FORMAT = 1;

/** A typed-array section of a snapshot. */
export type Section = Int32Array | Float32Array;

interface SectionEntry {
  type: "i32" | "f32";
  offset: number;
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

/** Packs a header and sections into one buffer. */
export function encodeSnapshot(header: SnapshotHeader, sections: Record<string, Section | undefined>): Buffer {
  const table: Record<string, SectionEntry> = {};
  let offset = 0;
  const present = Object.entries(sections).filter((entry): entry is [string, Section] => entry[1] !== undefined);
  for (const [name, data] of present) {
    table[name] = { type: data instanceof Float32Array ? "f32" : "i32", offset, length: data.length };
    offset += data.byteLength;
  }
  const json = Buffer.from(JSON.stringify({ format: FORMAT, ...header, sections: table }), "utf8");
  const start = align(8 + 4 + json.length);
  const out = Buffer.alloc(start + offset);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt32LE(json.length, 8);
  json.copy(out, 12);
  for (const [name, data] of present) {
    out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), start + table[name].offset);
  }
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
  if (header.format !== FORMAT) throw invalid(`it has format ${header.format}, this version reads format ${FORMAT}`);
  if (header.kind !== kind) throw invalid(`it holds a ${header.kind} index, not a ${kind} index`);
  const start = align(12 + length);
  const sections: Record<string, Section> = {};
  for (const [name, entry] of Object.entries(header.sections ?? {})) {
    const at = bytes.byteOffset + start + entry.offset;
    if (start + entry.offset + entry.length * 4 > bytes.length) throw invalid(`its section ${name} is cut short`);
    const View = entry.type === "f32" ? Float32Array : Int32Array;
    // A view in place when aligned; otherwise a copy (typed arrays need their element alignment).
    sections[name] = at % 4 === 0
      ? new View(bytes.buffer as ArrayBuffer, at, entry.length)
      : new View(new Uint8Array(bytes.buffer, at, entry.length * 4).slice().buffer);
  }
  return { header, sections };
}

/** A section that must hold 32-bit integers; `snapshot_invalid` naming it when it is missing. */
export function int32Section(sections: Record<string, Section>, name: string): Int32Array {
  if (!(sections[name] instanceof Int32Array)) throw invalid(`its section ${name} is missing`);
  return sections[name] as Int32Array;
}

/** The BM25 state an index snapshot holds (header `bm25` and its four sections). */
export function bm25State(header: SnapshotHeader, sections: Record<string, Section>): Bm25fState {
  const bm25 = header.bm25 as { ids: (string | null)[]; terms: string[] };
  const i32 = (name: string) => int32Section(sections, name);
  return { ...bm25, lengths: i32("lengths"), offsets: i32("offsets"), slots: i32("slots"), tfs: i32("tfs") };
}

/** The vectors an index snapshot holds, or undefined. */
export function savedVectors(header: SnapshotHeader, sections: Record<string, Section>): VectorState | undefined {
  const vectors = header.vectors as Omit<VectorState, "vectors"> | undefined;
  return vectors && sections.vectors instanceof Float32Array ? { ...vectors, vectors: sections.vectors } : undefined;
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
