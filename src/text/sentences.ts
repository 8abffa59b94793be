/**
 * Sentence splitting for dense queries. A request such as "Track my package CA107308006SI. Also, what is the weather
 * in Lyon?" asks for two tools; one embedding of the whole text lands between them and matches neither well, so the
 * dense engines embed each sentence and score an item by its best sentence (docs/embeddings.md, "Long requests").
 *
 * @example
 * ```ts
 * splitSentences("Track my package. Also, will it rain in Lyon?"); // ["Track my package.", "Also, will it rain in Lyon?"]
 * ```
 */

/** Sentences kept apart at most; the rest of a longer text stays in the last one, bounding a query's embeddings. */
export const MAX_QUERY_SENTENCES = 8;

// ICU's sentence rules (through Intl) know abbreviations such as "Inc." and "e.g." and scripts beyond Latin. Made on
// first use: loading ICU's rules takes longer than a gateway's whole BM25 start (docs/benchmarks.md, "Launch time").
let segmenter: Intl.Segmenter | undefined;
const WORDLIKE = /[\p{L}\p{N}]/u;

/** The sentences of `text`, trimmed, without pieces that hold no letter or digit; `[]` for a text with none. */
export function splitSentences(text: string, max = MAX_QUERY_SENTENCES): string[] {
  const sentences: string[] = [];
  for (const { segment } of (segmenter ??= new Intl.Segmenter("en", { granularity: "sentence" })).segment(text)) {
    const sentence = segment.trim();
    if (!WORDLIKE.test(sentence)) continue;
    if (sentences.length < max) sentences.push(sentence);
    else sentences[max - 1] += ` ${sentence}`;
  }
  return sentences;
}
