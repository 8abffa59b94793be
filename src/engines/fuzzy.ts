/**
 * Typo tolerance: finds vocabulary terms within a small edit distance of a term that is not in the vocabulary.
 * Terms are bucketed by length and carry a 32-bit mask of the letters they contain; one edit changes at most two bits
 * of that mask, so most candidates are rejected by a popcount before any distance is computed.
 */
import { boundedEditDistance } from "./edit-distance.js";

/** How far a misspelt term may be from a vocabulary term. */
export interface FuzzyOptions {
  /** Terms shorter than this are never expanded (default 4: short terms have too many neighbours). */
  minLength?: number;
  /** Terms at least this long may be two edits away; shorter ones one edit (default 8). */
  twoEditsFrom?: number;
  /** At most this many expansions per term, nearest first (default 3). */
  maxExpansions?: number;
}

/** A vocabulary term that a misspelt term may have meant. */
export interface Expansion {
  term: string;
  distance: number;
}

function letterMask(term: string): number {
  let mask = 0;
  for (let i = 0; i < term.length; i++) mask |= 1 << (term.charCodeAt(i) % 31);
  return mask;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

interface Bucket {
  terms: string[];
  masks: number[];
  position: Map<string, number>;
}

/** The vocabulary as the fuzzy matcher sees it; kept in step with the index's terms. */
export class FuzzyVocabulary {
  private readonly buckets = new Map<number, Bucket>();
  private readonly minLength: number;
  private readonly twoEditsFrom: number;
  private readonly maxExpansions: number;
  /** Number of terms held. */
  size = 0;

  constructor(options: FuzzyOptions = {}) {
    this.minLength = options.minLength ?? 4;
    this.twoEditsFrom = options.twoEditsFrom ?? 8;
    this.maxExpansions = options.maxExpansions ?? 3;
  }

  add(term: string): void {
    let bucket = this.buckets.get(term.length);
    if (!bucket) this.buckets.set(term.length, (bucket = { terms: [], masks: [], position: new Map() }));
    if (bucket.position.has(term)) return;
    bucket.position.set(term, bucket.terms.length);
    bucket.terms.push(term);
    bucket.masks.push(letterMask(term));
    this.size++;
  }

  delete(term: string): void {
    const bucket = this.buckets.get(term.length);
    const at = bucket?.position.get(term);
    if (!bucket || at === undefined) return;
    const last = bucket.terms.length - 1;
    bucket.terms[at] = bucket.terms[last];
    bucket.masks[at] = bucket.masks[last];
    bucket.position.set(bucket.terms[at], at);
    bucket.terms.pop();
    bucket.masks.pop();
    bucket.position.delete(term);
    this.size--;
  }

  /** The largest edit distance allowed for a term of this length (0: no fuzzy matching). */
  maxDistance(term: string): number {
    if (term.length < this.minLength || /\d/.test(term)) return 0;
    return term.length >= this.twoEditsFrom ? 2 : 1;
  }

  /**
   * Vocabulary terms near `term`, nearest first, ties by term; `term` itself is never returned. `keep` leaves terms
   * out before the cap on expansions, so a caller searching a subset gets that subset's nearest terms.
   */
  expand(term: string, maxDistance = this.maxDistance(term), keep?: (term: string) => boolean): Expansion[] {
    if (maxDistance <= 0) return [];
    const mask = letterMask(term);
    const found: Expansion[] = [];
    for (let length = term.length - maxDistance; length <= term.length + maxDistance; length++) {
      const bucket = this.buckets.get(length);
      if (!bucket) continue;
      const { terms, masks } = bucket;
      for (let i = 0; i < terms.length; i++) {
        if (popcount(mask ^ masks[i]) > 2 * maxDistance) continue;
        const candidate = terms[i];
        if (candidate === term || (keep && !keep(candidate))) continue;
        const distance = boundedEditDistance(term, candidate, maxDistance);
        if (distance <= maxDistance) found.push({ term: candidate, distance });
      }
    }
    found.sort((a, b) => a.distance - b.distance || (a.term < b.term ? -1 : 1));
    return found.slice(0, this.maxExpansions);
  }
}
