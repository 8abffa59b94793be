/**
 * The 100k-passage knowledge-base corpus of the document benchmarks (bench:documents, bench:restart --docs): every
 * StackFAQ thread cut into passages (as DocumentIndex cuts them) and kept under its thread's id, plus generated
 * distractor passages (random StackFAQ sentences under titles mixed from StackFAQ title words) up to `total`.
 */
import { loadDocuments } from "../src/catalog/documents.js";
import { DEFAULT_PASSAGE_CHARS, splitPassages } from "../src/text/passages.js";
import { random } from "./random.js";

/** One record of the corpus: a passage, and the thread it stands for (undefined for a distractor). */
export interface PassageRecord {
  id: string;
  title: string;
  body: string;
}

/** The corpus and, for each real passage, the thread it came from. */
export function buildCorpus(path: string, total: number, seed: number): { records: PassageRecord[]; owner: Map<string, string> } {
  const docs = loadDocuments(path);
  const records: PassageRecord[] = [];
  const owner = new Map<string, string>();
  const sentences: string[] = [];
  const titleWords: string[] = [];
  for (const doc of docs) {
    splitPassages(doc.body).forEach((p, n) => {
      const id = `${doc.id}#${n}`;
      records.push({ id, title: doc.title, body: doc.body.slice(p.start, p.end) });
      owner.set(id, doc.id);
    });
    for (const s of doc.body.split(/(?<=[.!?])\s+|\n+/)) if (s.length >= 20 && s.length <= 300) sentences.push(s.trim());
    titleWords.push(...doc.title.split(/\s+/));
  }
  const next = random(seed);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  for (let i = 0; records.length < total; i++) {
    const title = Array.from({ length: 3 + Math.floor(next() * 5) }, () => pick(titleWords)).join(" ");
    const want = 2 + Math.floor(next() * 5);
    let body = "";
    for (let k = 0; k < want; k++) {
      const s = pick(sentences);
      if (body.length + s.length + 1 > DEFAULT_PASSAGE_CHARS) break;
      body += (body ? " " : "") + s;
    }
    records.push({ id: `synthetic-${i}`, title, body: body || pick(sentences) });
  }
  return { records, owner };
}

