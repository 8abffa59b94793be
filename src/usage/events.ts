/**
 * Usage events → evidence for the learned signal: a successful call counts as a search→call pair with the last
 * search of the same session before it. Calls without a search before them (an agent that knew the tool) and failed
 * calls teach nothing about which words lead to a tool.
 *
 * @example
 * ```ts
 * const learned = learnedFromEvents(await store.listUsage("crm"), analyzer);
 * ```
 */
import type { UsageEvent } from "../store/types.js";
import type { Analyzer } from "../text/analyzer.js";
import { type LearnedOptions, LearnedSignal } from "./learned.js";

export { USAGE_RETENTION } from "../store/retention.js";

/** Feeds events (oldest first) into a learned signal, remembering each session's last search. */
export class UsageLearner {
  readonly signal: LearnedSignal;
  /** session → its last search's query; bounded so that a flood of one-off sessions cannot grow it without end. */
  private readonly lastSearch = new Map<string, string>();

  constructor(analyzer: Analyzer, options?: LearnedOptions) {
    this.signal = new LearnedSignal(analyzer, options);
  }

  add(event: UsageEvent): void {
    if (event.kind === "search" && event.query !== undefined) {
      this.lastSearch.delete(event.session);
      this.lastSearch.set(event.session, event.query);
      if (this.lastSearch.size > 10_000) this.lastSearch.delete(this.lastSearch.keys().next().value!);
      return;
    }
    const query = this.lastSearch.get(event.session);
    if (event.kind === "call" && event.outcome === "ok" && query !== undefined) this.signal.addSearch(query, event.tools, Date.parse(event.at));
  }
}

export function learnedFromEvents(events: UsageEvent[], analyzer: Analyzer, options?: LearnedOptions): UsageLearner {
  const learner = new UsageLearner(analyzer, options);
  for (const event of events) learner.add(event);
  return learner;
}
