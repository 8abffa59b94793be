/** Suggestions for a name that is not there: the closest names by edit distance, then by shared substring. */
import { boundedEditDistance } from "../engines/edit-distance.js";

/**
 * Up to `max` of `names` that look like `wanted`: within a third of its length in edits (case-insensitive), or
 * containing it / contained in it. Closest first, ties by name.
 */
export function closestNames(wanted: string, names: Iterable<string>, max = 3): string[] {
  const target = wanted.toLowerCase();
  const budget = Math.max(2, Math.floor(target.length / 3));
  const scored: { name: string; cost: number }[] = [];
  for (const name of names) {
    const lower = name.toLowerCase();
    let cost = boundedEditDistance(target, lower, budget);
    if (cost > budget && target.length >= 3 && (lower.includes(target) || target.includes(lower))) cost = budget + 0.5;
    if (cost <= budget + 0.5) scored.push({ name, cost });
  }
  scored.sort((a, b) => a.cost - b.cost || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, max).map((s) => s.name);
}
