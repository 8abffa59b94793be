/**
 * The vocabulary of a BM25F index: each term's dense id (the index of everything per term) and back. A term is a
 * string and a map entry, nothing more. An index loaded from a snapshot keeps its terms as the snapshot's string list
 * and decodes them on the first lookup, so a collection loaded and never searched costs no string per term.
 */

/** A list of strings read one at a time (a snapshot's `TextList`, or an array through `listOf`). */
export interface StringList {
  readonly length: number;
  get(i: number): string;
}

/** An array as a `StringList`. */
export function listOf(strings: readonly string[]): StringList {
  return { length: strings.length, get: (i) => strings[i] };
}

export class TermDictionary {
  private ids = new Map<string, number>();
  private terms: string[] = [];
  /** The saved terms not decoded yet (see the file comment). */
  private saved: StringList | undefined;
  /** Term ids, decoded or not. */
  private total = 0;

  /** A dictionary of saved terms, term `i` having id `i`, decoded on first need. */
  static of(saved: StringList): TermDictionary {
    const dictionary = new TermDictionary();
    dictionary.saved = saved;
    dictionary.total = saved.length;
    return dictionary;
  }

  /** Number of term ids. */
  get size(): number {
    return this.total;
  }

  /** Whether the terms are still undecoded (so no string per term is held). */
  get decoded(): boolean {
    return this.saved === undefined;
  }

  /** Bytes of its strings as UTF-16 (decoded terms only; undecoded ones are the snapshot's bytes). */
  get stringBytes(): number {
    let bytes = 0;
    for (const term of this.terms) bytes += 2 * term.length;
    return bytes;
  }

  /** The term's id, or undefined. */
  get(term: string): number | undefined {
    this.decode();
    return this.ids.get(term);
  }

  /** The term's id, a new one on first sight. */
  intern(term: string): number {
    this.decode();
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.total++;
      this.ids.set(term, id);
      this.terms.push(term);
    }
    return id;
  }

  /** The term of an id. */
  term(id: number): string {
    this.decode();
    return this.terms[id];
  }

  private decode(): void {
    const saved = this.saved;
    if (!saved) return;
    this.saved = undefined;
    const terms = new Array<string>(saved.length);
    for (let i = 0; i < saved.length; i++) {
      const term = saved.get(i);
      terms[i] = term;
      // A damaged list could name a term twice: the first id keeps it (the later one is then never found).
      if (!this.ids.has(term)) this.ids.set(term, i);
    }
    this.terms = terms;
  }
}
