/** `toolsearch keys create|list|revoke`: API keys of the service, kept (hashed) in its store. */
import type { Command } from "commander";
import { ToolsearchError } from "../../errors.js";
import { createApiKey } from "../../server/auth.js";
import { defaultStorePath, openStore } from "../../store/open.js";
import { SCOPES, type Scope, type Store } from "../../store/types.js";
import { printJson, printLines, table, UsageError } from "../output.js";

interface StoreFlags {
  store?: string;
  json?: boolean;
}

interface CreateFlags extends StoreFlags {
  scope: string;
  collection?: string;
  label?: string;
  toolsAllow?: string[];
  toolsDeny?: string[];
}

/** Collects a repeatable option's values. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

async function withStore<T>(flags: StoreFlags, body: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(flags.store ?? defaultStorePath());
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

export function registerKeys(program: Command): void {
  const keys = program.command("keys").description("create, list and revoke API keys of the service");
  const storeOption = (c: Command) => c.option("--store <path|url>", `SQLite file or postgres:// URL (default ${defaultStorePath()})`).option("--json", "machine-readable output");

  storeOption(keys.command("create").description("create a key and print it once (the store keeps only its hash)"))
    .requiredOption("--scope <scope>", `one of ${SCOPES.join(", ")} (each includes the ones before)`)
    .option("--collection <name>", "limit the key to one collection")
    .option("--label <text>", "a note to tell keys apart in keys list")
    .option("--tools-allow <glob>", "the key sees only tools whose name matches (repeatable; * and ?)", collect)
    .option("--tools-deny <glob>", "hide the tools whose name matches from this key (repeatable; * and ?)", collect)
    .action(async (flags: CreateFlags) => {
      if (!SCOPES.includes(flags.scope as Scope)) throw new UsageError(`--scope takes ${SCOPES.join(", ")} (got ${JSON.stringify(flags.scope)})`);
      const options = { scope: flags.scope as Scope, collection: flags.collection, label: flags.label, toolsAllow: flags.toolsAllow, toolsDeny: flags.toolsDeny };
      const created = await withStore(flags, (store) => createApiKey(store, options));
      if (flags.json) return printJson(created);
      printLines([
        `id:    ${created.id}`,
        `scope: ${created.scope}${created.collection ? ` (collection ${created.collection} only)` : ""}`,
        ...(created.toolsAllow ? [`tools: only ${created.toolsAllow.join(", ")}`] : []),
        ...(created.toolsDeny ? [`hides: ${created.toolsDeny.join(", ")}`] : []),
        `key:   ${created.key}`,
        "Keep the key now: it is not stored and cannot be shown again.",
      ]);
    });

  storeOption(keys.command("list").description("list keys (ids, scopes, collections; never the keys themselves)")).action(async (flags: StoreFlags) => {
    const list = await withStore(flags, (store) => store.listKeys());
    if (flags.json) return printJson({ keys: list });
    if (list.length === 0) return printLines(["No keys. Create one with: toolsearch keys create --scope read"]);
    const tools = (k: (typeof list)[number]) => [k.toolsAllow?.join(" "), k.toolsDeny && `not ${k.toolsDeny.join(" ")}`].filter(Boolean).join("; ") || "*";
    printLines(table(["id", "scope", "collection", "tools", "label", "created", "revoked"], list.map((k) => [k.id, k.scope, k.collection ?? "*", tools(k), k.label ?? "", k.createdAt, k.revokedAt ?? ""])));
  });

  storeOption(keys.command("revoke").description("revoke a key: it stops working at once").argument("<id>", "the key's id (from keys list)")).action(async (id: string, flags: StoreFlags) => {
    const revoked = await withStore(flags, (store) => store.revokeKey(id));
    if (!revoked) throw new ToolsearchError("invalid_option", `No live key with id ${JSON.stringify(id)} (see toolsearch keys list).`);
    if (flags.json) return printJson({ id, revoked: true });
    printLines([`Key ${id} revoked.`]);
  });
}
