/** `toolsearch audit`: the service's audit log (SPEC §16), read from its store: who called which tool, who wrote what. */
import type { Command } from "commander";
import { defaultStorePath, openStore } from "../../store/open.js";
import type { AuditRecord } from "../../store/types.js";
import { parseSince } from "../../trust/audit.js";
import { parseInteger, printJson, printLines, table } from "../output.js";

interface AuditFlags {
  store?: string;
  since?: string;
  collection?: string;
  who?: string;
  limit: number;
  json?: boolean;
}

export function registerAudit(program: Command): void {
  program
    .command("audit")
    .description("show the audit log: tool calls and collection writes, newest first")
    .option("--store <path|url>", `SQLite file or postgres:// URL (default ${defaultStorePath()})`)
    .option("--since <time>", "only entries since an ISO 8601 time or an age such as 30m, 12h, 7d")
    .option("--collection <name>", "only this collection")
    .option("--who <id>", "only this key id or token subject")
    .option("--limit <n>", "most entries shown", parseInteger("--limit", 1, 1_000_000), 100)
    .option("--json", "machine-readable output")
    .action(async (flags: AuditFlags) => {
      const since = flags.since === undefined ? undefined : parseSince(flags.since);
      const store = await openStore(flags.store ?? defaultStorePath());
      let entries: AuditRecord[];
      try {
        entries = await store.listAudit({ since, collection: flags.collection, who: flags.who, limit: flags.limit });
      } finally {
        await store.close();
      }
      if (flags.json) return printJson({ entries });
      if (entries.length === 0) return printLines(["No audit entries (the service records tool calls and collection writes)."]);
      // Result screening (SPEC §16): what was done and by which rules; the excerpts are in --json.
      const screen = (e: (typeof entries)[number]) => (e.screen ? `${e.screen.action}: ${[...new Set(e.screen.flags.map((f) => f.rule))].join(",")}` : "");
      const rows = entries.map((e) => [e.at, e.who, e.action, e.collection, e.target ?? "", e.outcome, e.durationMs.toFixed(1), String(e.argumentBytes ?? ""), screen(e)]);
      printLines(table(["when", "who", "action", "collection", "tool or item", "outcome", "ms", "arg bytes", "screen"], rows));
    });
}
