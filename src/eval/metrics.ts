/** Retrieval metrics exactly as SPEC §5 defines them, for one query; `eval` averages them over queries. */

/** |R ∩ top k| / |R|. */
export function recallAt(k: number, ranked: string[], relevant: ReadonlySet<string>): number {
  if (relevant.size === 0) return 0;
  let hits = 0;
  for (const id of ranked.slice(0, k)) if (relevant.has(id)) hits++;
  return hits / relevant.size;
}

/** DCG@10 / IDCG@10 with binary gains; IDCG over min(|R|, 10) ideal hits. */
export function ndcgAt(k: number, ranked: string[], relevant: ReadonlySet<string>): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let idcg = 0;
  for (let i = 0; i < Math.min(relevant.size, k); i++) idcg += 1 / Math.log2(i + 2);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** 1 / rank of the first relevant result within the top k, else 0. */
export function reciprocalRankAt(k: number, ranked: string[], relevant: ReadonlySet<string>): number {
  const at = ranked.slice(0, k).findIndex((id) => relevant.has(id));
  return at < 0 ? 0 : 1 / (at + 1);
}

/** The value below which `q` of the sorted samples fall (nearest-rank method). */
export function percentile(samples: number[], q: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}
