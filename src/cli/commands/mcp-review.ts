/**
 * `toolsearch mcp review [--approve NAME…] [--reject NAME…] [--json] [--store PATH] [--collection C]`: lists the
 * upstream tool definitions the gateway holds (changed, new, or flagged by the poisoning lint rules) with a diff
 * against what it serves, and approves or rejects them (SPEC §16). It works on the store, so the gateway need not run;
 * a running gateway serves a decision within its `--review-poll` (each decision leaves a mark in the store's
 * settings). With `--collection`, it reviews a service `mcp` collection instead, and announces a decision through the
 * store's change feed as `POST /v1/collections/{c}/review` does, so every running replica serves it.
 */
import type { Command } from "commander";
import { ToolsearchError } from "../../errors.js";
import { GATEWAY_OWNER } from "../../mcp/manifests.js";
import type { Store } from "../../store/types.js";
import { recordAudit } from "../../trust/audit.js";
import { defaultStorePath, openStore } from "../../store/open.js";
import { definitionDiff, renderDiffText, reviewEntry, visible } from "../../trust/diff.js";
import { type HeldTool, PinBook } from "../../trust/pin-book.js";
import { printJson, printLines, UsageError } from "../output.js";

interface ReviewFlags {
  approve?: string[];
  reject?: string[];
  json?: boolean;
  store?: string;
  collection?: string;
}

export function registerMcpReview(mcp: Command): void {
  mcp
    .command("review")
    .description("list the upstream tool changes the gateway holds for review, with a diff; approve or reject them")
    .option("--approve <name...>", "serve these held definitions from now on (namespaced names, e.g. math__add)")
    .option("--reject <name...>", "drop these held definitions; the pinned ones keep being served")
    .option("--store <path>", "the gateway's store (default: $TOOLSEARCH_DEFAULT_STORE, else $TOOLSEARCH_HOME/store.sqlite)")
    .option("--collection <name>", "review the service's mcp collection NAME (in --store) instead of toolsearch mcp's servers")
    .option("--json", "print {held:[…], approved, rejected} as JSON")
    .action(async (_flags: ReviewFlags, command: Command) => {
      // `--store` and `--json` are also options of `toolsearch mcp`, which takes them before this command sees them.
      const flags = command.optsWithGlobals<ReviewFlags>();
      const both = (flags.approve ?? []).filter((name) => flags.reject?.includes(name));
      if (both.length) throw new UsageError(`cannot both approve and reject ${both.join(", ")}`);
      const store = await openStore(flags.store ?? defaultStorePath());
      try {
        const owner = flags.collection === undefined ? GATEWAY_OWNER : await collectionOwner(store, flags.collection);
        const book = await PinBook.open(store, owner);
        const decided = flags.approve?.length || flags.reject?.length;
        if (decided) {
          const started = performance.now();
          await book.decide({ approve: flags.approve, reject: flags.reject });
          if (flags.collection !== undefined) {
            await announce(store, flags.collection);
            await auditDecisions(store, flags.collection, flags, performance.now() - started);
          }
        }
        const held = book.held();
        if (flags.json) printJson({ held: held.map(reviewEntry), approved: flags.approve ?? [], rejected: flags.reject ?? [] });
        else printLines(reviewLines(held, flags));
      } finally {
        await store.close();
      }
    });
}

/** The pin owner of a service `mcp` collection, which must exist. */
async function collectionOwner(store: Store, name: string): Promise<string> {
  const record = await store.getCollection(name);
  if (!record || record.kind !== "mcp") throw new ToolsearchError("unknown_collection", `the store ${store.location} has no mcp collection ${JSON.stringify(name)}`);
  return (await import("../../server/collections.js")).manifestOwner(name);
}

/**
 * Writes the collection again as it is (the service's `Collections.touch`): a change in the store's log, which every
 * replica of `toolsearch serve` follows (PostgreSQL: LISTEN/NOTIFY; SQLite: the store's watch on other processes'
 * commits), so each reloads the collection with the decided pins and moves its open `/mcp/{c}` sessions over.
 */
async function announce(store: Store, name: string): Promise<void> {
  const record = await store.getCollection(name);
  if (record) await store.putCollection(name, record.kind, record.config, []);
}

/** Records the decisions in the service's audit log, as `POST …/review` does, by `cli` (the store has no caller id). */
async function auditDecisions(store: Store, collection: string, flags: ReviewFlags, durationMs: number): Promise<void> {
  const entry = (action: string) => (target: string) => recordAudit(store, { who: "cli", action, collection, target, outcome: "ok", durationMs });
  await Promise.all([...(flags.approve ?? []).map(entry("review_approve")), ...(flags.reject ?? []).map(entry("review_reject"))]);
}

function reviewLines(held: HeldTool[], flags: ReviewFlags): string[] {
  const lines: string[] = [];
  if (flags.approve?.length) lines.push(`Approved: ${flags.approve.join(", ")}`);
  if (flags.reject?.length) lines.push(`Rejected: ${flags.reject.join(", ")}`);
  if (!held.length) return [...lines, "Nothing is held for review."];
  lines.push(`${held.length} definition${held.length === 1 ? "" : "s"} held for review:`);
  for (const tool of held) {
    lines.push("", `${tool.name} (${REASONS[tool.reason]}, since ${tool.since})`);
    for (const f of tool.findings) lines.push(`  ! ${f.rule}: ${visible(f.message)}`);
    lines.push(...renderDiffText(definitionDiff(tool.pinned, tool.held)));
  }
  const command = `toolsearch mcp review${flags.collection === undefined ? "" : ` --collection ${flags.collection}`}`;
  lines.push("", `Approve with: ${command} --approve NAME…   Reject with: ${command} --reject NAME…`);
  return lines;
}

const REASONS: Record<HeldTool["reason"], string> = {
  changed: "changed since it was pinned",
  new: "new tool",
  flagged: "flagged by the poisoning lint rules",
};
