/**
 * Labelled queries replayed as history (`eval --history`): each query counts as if an agent had searched with it and
 * then called every tool its label names. Events are spaced a minute apart, oldest first, in file order.
 *
 * @example
 * ```ts
 * const learned = replayHistory([{ id: "q1", query: "refund an order", relevant: ["process_refund"] }], analyzer);
 * index.setLearned(learned);
 * ```
 */
import type { LabelledQuery } from "../eval/queries.js";
import type { Analyzer } from "../text/analyzer.js";
import { LearnedSignal, type LearnedOptions } from "./learned.js";

const MINUTE_MS = 60_000;

export function replayHistory(history: LabelledQuery[], analyzer: Analyzer, options?: LearnedOptions, now = Date.now()): LearnedSignal {
  const learned = new LearnedSignal(analyzer, options);
  const start = now - history.length * MINUTE_MS;
  history.forEach((q, i) => learned.addSearch(q.query, q.relevant, start + i * MINUTE_MS));
  return learned;
}
