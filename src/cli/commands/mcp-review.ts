/**
 * `toolsearch mcp review [--approve NAME…] [--reject NAME…] [--json] [--store PATH]`: lists the upstream tool
 * definitions the gateway holds (changed, new, or flagged by the poisoning lint rules) with a diff against what it
 * serves, and approves or rejects them (SPEC §16). It works on the store, so the gateway need not run; a running
 * gateway serves a decision within its `--review-poll` (each decision leaves a mark in the store's settings).
 */
import type { Command } from "commander";
import { GATEWAY_OWNER } from "../../mcp/manifests.js";
import { defaultStorePath, openStore } from "../../store/open.js";
import { definitionDiff, renderDiffText, reviewEntry, visible } from "../../trust/diff.js";
import { type HeldTool, PinBook } from "../../trust/pin-book.js";
import { printJson, printLines, UsageError } from "../output.js";

interface ReviewFlags {
  approve?: string[];
  reject?: string[];
  json?: boolean;
  store?: string;
}

export function registerMcpReview(mcp: Command): void {
  mcp
    .command("review")
    .description("list the upstream tool changes the gateway holds for review, with a diff; approve or reject them")
    .option("--approve <name...>", "serve these held definitions from now on (namespaced names, e.g. math__add)")
    .option("--reject <name...>", "drop these held definitions; the pinned ones keep being served")
    .option("--store <path>", "the gateway's store (default: $TOOLSEARCH_HOME/store.sqlite)")
    .option("--json", "print {held:[…], approved, rejected} as JSON")
    .action(async (_flags: ReviewFlags, command: Command) => {
      // `--store` and `--json` are also options of `toolsearch mcp`, which takes them before this command sees them.
      const flags = command.optsWithGlobals<ReviewFlags>();
      const both = (flags.approve ?? []).filter((name) => flags.reject?.includes(name));
      if (both.length) throw new UsageError(`cannot both approve and reject ${both.join(", ")}`);
      const store = await openStore(flags.store ?? defaultStorePath());
      try {
        const book = await PinBook.open(store, GATEWAY_OWNER);
        const decided = flags.approve?.length || flags.reject?.length;
        if (decided) await book.decide({ approve: flags.approve, reject: flags.reject });
        const held = book.held();
        if (flags.json) printJson({ held: held.map(reviewEntry), approved: flags.approve ?? [], rejected: flags.reject ?? [] });
        else printLines(reviewLines(held, flags));
      } finally {
        await store.close();
      }
    });
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
  lines.push("", "Approve with: toolsearch mcp review --approve NAME…   Reject with: toolsearch mcp review --reject NAME…");
  return lines;
}

const REASONS: Record<HeldTool["reason"], string> = {
  changed: "changed since it was pinned",
  new: "new tool",
  flagged: "flagged by the poisoning lint rules",
};
