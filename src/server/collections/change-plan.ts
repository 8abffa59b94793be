/**
 * What a page of the change log asks a replica to do, decided from the changes alone; and the item changes of one
 * collection since a version, for catching a loaded index up. Applying a plan is `ChangeApplier`'s job
 * (src/server/collections/apply-changes.ts).
 *
 * Changes are applied by re-reading current state, so a plan names what to re-read, once each, whatever the number
 * of changes to it: a collection created, replaced or deleted is reloaded whole; a touched item key is re-read; a
 * collection whose curation changed has its synonyms and rules re-read.
 *
 * @example
 * const plan = planPage(await store.changesSince(applied, 1000));
 * for (const name of plan.whole) await reload(name);
 */
import type { Change, Store } from "../../store/types.js";

/** What to re-read after a page of changes. */
export interface ChangePlan {
  /** Collections created, replaced whole or deleted: reload (or drop) each once. */
  whole: Set<string>;
  /** Item keys to re-read, per collection not reloaded whole. */
  keys: Map<string, Set<string>>;
  /** Collections (not reloaded whole) whose synonyms, rules or learning switch changed. */
  curated: Set<string>;
}

/** The plan of a page of changes; see the module comment. */
export function planPage(changes: Change[]): ChangePlan {
  const whole = new Set<string>();
  const keys = new Map<string, Set<string>>();
  const curated = new Set<string>();
  for (const change of changes) {
    if (change.scope === "curation") curated.add(change.collection);
    else if (change.scope === "collection" || change.key === undefined) whole.add(change.collection);
    else keys.set(change.collection, (keys.get(change.collection) ?? new Set()).add(change.key));
  }
  // A reload re-reads the items and curation too.
  for (const name of whole) {
    keys.delete(name);
    curated.delete(name);
  }
  return { whole, keys, curated };
}

/** Whether the log no longer reaches back to `after`: its first change after it skips some (pruned). */
export function prunedPast(after: number, changes: Change[]): boolean {
  return changes.length > 0 && changes[0].seq > after + 1;
}

/**
 * The item changes of one collection after `version` (the collection is at `target` or later), or "rebuild" when
 * replaying them would not do: the collection was replaced whole, or the log was pruned past `version`.
 */
export async function itemChangesSince(store: Pick<Store, "changesSince">, name: string, version: number, target: number, pageSize = 1000): Promise<Change[] | "rebuild"> {
  const first = await store.changesSince(version, 1);
  if (first.length > 0 ? prunedPast(version, first) : target > version) return "rebuild";
  const out: Change[] = [];
  for (let after = version; ;) {
    const changes = await store.changesSince(after, pageSize, name);
    if (changes.some((change) => change.scope === "collection" || change.key === undefined)) return "rebuild";
    out.push(...changes);
    if (changes.length < pageSize) return out;
    after = changes[changes.length - 1].seq;
  }
}

/** The item keys a list of one collection's changes touched (a curation change names no item: it is re-read at swap-in). */
export function touchedKeys(changes: Change[]): Set<string> {
  return new Set(changes.filter((change) => change.scope === "item").map((change) => change.key!));
}
