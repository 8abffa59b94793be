/**
 * Splits a labelled-queries file into history and test halves for `toolsearch eval --history` (SPEC §17, offline
 * proof), three ways, each deterministic (hashes of ids and names, no random state):
 * - `random`: each query by a hash of its id;
 * - `order`: the first half of the file is history, the second half the test (as if the file were a log);
 * - `unseen`: the tools are split in two by a hash of their names; history holds the queries of one half, the test
 *   the queries whose tools are all in the other, so no test query's tool was ever called in the history.
 *
 *   node --import tsx scripts/split-history.ts --queries ../shared/data/metatool/queries.jsonl --out .bench-out/history
 *
 * Writes `OUT/<split>/history.jsonl` and `OUT/<split>/test.jsonl`, and prints the sizes.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { LabelledQuery } from "../src/eval/queries.js";

const { values } = parseArgs({ options: { queries: { type: "string" }, out: { type: "string", default: ".bench-out/history" } } });
if (!values.queries) throw new Error("--queries FILE is required");
const queries: LabelledQuery[] = readFileSync(values.queries, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

const half = (text: string) => createHash("sha1").update(text).digest()[0] % 2 === 0;

const splits: Record<string, [LabelledQuery[], LabelledQuery[]]> = {
  random: [queries.filter((q) => half(q.id)), queries.filter((q) => !half(q.id))],
  order: [queries.slice(0, queries.length >> 1), queries.slice(queries.length >> 1)],
  unseen: [queries.filter((q) => q.relevant.every(half)), queries.filter((q) => q.relevant.every((t) => !half(t)))],
};

for (const [name, [history, test]] of Object.entries(splits)) {
  const dir = join(values.out!, name);
  mkdirSync(dir, { recursive: true });
  const jsonl = (list: LabelledQuery[]) => list.map((q) => JSON.stringify(q)).join("\n") + "\n";
  writeFileSync(join(dir, "history.jsonl"), jsonl(history));
  writeFileSync(join(dir, "test.jsonl"), jsonl(test));
  const seen = new Set(history.flatMap((q) => q.relevant));
  const testSeen = test.filter((q) => q.relevant.some((t) => seen.has(t))).length;
  console.log(`${name}: history ${history.length}, test ${test.length} (${testSeen} test queries with a tool seen in history)`);
}
