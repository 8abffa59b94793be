/**
 * Which loaded collections a replica may drop to stay within its memory budget (`serve --memory-budget MB`).
 *
 * It keeps the order in which collections were last used (least recent first) and how many requests are using each
 * one right now. When a load would take the loaded indexes past the budget, `victims` names the least recently used
 * idle ones to drop until the new one fits: never one a request is using (pinned) or one the caller says is busy (an
 * open MCP session, a load in flight). When nothing idle is left the load goes ahead anyway: a collection larger than
 * the budget is served, never refused; the caller logs it.
 *
 * Sizes are what the indexes say they hold (`ToolIndex.memoryBytes`, `DocumentIndex.memoryBytes`): counted from
 * their entries, texts and embedding vectors, not guessed per tool.
 *
 * @example
 * const cache = new CollectionCache(64 * 2 ** 20);
 * cache.touch("crm");
 * for (const name of cache.victims(bytesOfNew, bytesOf, isBusy)) evict(name);
 */

/** Bytes per megabyte of `--memory-budget` (MiB). */
export const MB = 2 ** 20;

export class CollectionCache {
  /** Loaded collections, least recently used first (a Map keeps insertion order; `touch` moves a name to the end). */
  private readonly order = new Map<string, true>();
  private readonly pins = new Map<string, number>();

  /** `budget`: bytes the loaded indexes may hold (undefined: no bound). */
  constructor(readonly budget?: number) {}

  /** Marks a collection used now. */
  touch(name: string): void {
    this.order.delete(name);
    this.order.set(name, true);
  }

  /** Forgets a collection that was dropped or deleted (its pins stay until their requests end). */
  forget(name: string): void {
    this.order.delete(name);
  }

  /** A request starts using a collection; it is not dropped until `unpin`. */
  pin(name: string): void {
    this.pins.set(name, (this.pins.get(name) ?? 0) + 1);
  }

  unpin(name: string): void {
    const left = (this.pins.get(name) ?? 1) - 1;
    if (left > 0) this.pins.set(name, left);
    else this.pins.delete(name);
  }

  isPinned(name: string): boolean {
    return this.pins.has(name);
  }

  /**
   * The collections to drop, least recently used first, so that the loaded ones plus `needed` bytes fit the budget;
   * as many as can go when they cannot all fit. Empty without a budget.
   */
  victims(needed: number, bytesOf: (name: string) => number, busy: (name: string) => boolean): string[] {
    if (this.budget === undefined) return [];
    let held = 0;
    for (const name of this.order.keys()) held += bytesOf(name);
    const out: string[] = [];
    for (const name of this.order.keys()) {
      if (held + needed <= this.budget) break;
      if (this.isPinned(name) || busy(name)) continue;
      out.push(name);
      held -= bytesOf(name);
    }
    return out;
  }
}
