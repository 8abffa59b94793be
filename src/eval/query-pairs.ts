/**
 * Multi-tool requests made from single-step labelled queries: each query joined with another of the same file whose
 * answers differ ("A. Also, B"), answered by both queries' answers. Deterministic (no randomness), so a training or
 * evaluation set built from them is the same on every run.
 */
import type { LabelledQuery } from "./queries.js";

/**
 * Pairs query i with the first query from i + n/2 on (wrapping) whose answers share none of its own; a query whose
 * answers every other query shares makes no pair.
 */
export function pairQueries(queries: readonly LabelledQuery[]): LabelledQuery[] {
  const out: LabelledQuery[] = [];
  queries.forEach((q, i) => {
    for (let step = 0; step < queries.length; step++) {
      const other = queries[(i + Math.floor(queries.length / 2) + step) % queries.length];
      if (other.relevant.some((r) => q.relevant.includes(r))) continue;
      const first = q.query.trim().replace(/[.!?]*$/, ".");
      out.push({ id: `${q.id}+${other.id}`, query: `${first} Also, ${other.query.trim()}`, relevant: [...q.relevant, ...other.relevant] });
      return;
    }
  });
  return out;
}
