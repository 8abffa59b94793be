/** `toolsearch usage export --collection C [--store S] [--json]`: the usage events a service recorded for a collection. */
import type { Command } from "commander";
import { defaultStorePath, openStore } from "../../store/open.js";
import { unknownCollection } from "../../store/records.js";
import { USAGE_RETENTION } from "../../usage/events.js";
import { printLines, table } from "../output.js";

interface ExportFlags {
  collection: string;
  store?: string;
  json?: boolean;
}

export function registerUsage(program: Command): void {
  const usage = program.command("usage").description("usage events the service recorded (searches, loads, calls)");
  usage
    .command("export")
    .description("print a collection's usage events, oldest first (JSON Lines with --json)")
    .requiredOption("--collection <name>", "the collection")
    .option("--store <path|url>", `SQLite file or postgres:// URL (default ${defaultStorePath()})`)
    .option("--json", "one JSON object per event")
    .action(async (flags: ExportFlags) => {
      const store = await openStore(flags.store ?? defaultStorePath());
      try {
        if (!(await store.getCollection(flags.collection))) throw unknownCollection(flags.collection);
        const events = await store.listUsage(flags.collection, USAGE_RETENTION.maxEvents);
        if (flags.json) return printLines(events.map((event) => JSON.stringify(event)));
        const rows = events.map((e) => [e.at, e.session, e.kind, e.query ?? "", e.tools.join(" "), e.outcome ?? ""]);
        printLines([`${events.length} events of ${flags.collection}`, ...table(["at", "session", "kind", "query", "tools", "outcome"], rows)]);
      } finally {
        await store.close();
      }
    });
}
