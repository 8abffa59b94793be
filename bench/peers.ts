/**
 * The peers the benchmark measures toolsearch against, each configured fairly: the same fields (name, description,
 * parameters, category), the name boosted ×3 as ours is, and the name given both as written and split into words
 * (their tokenizers do not split identifiers).
 */
import { create, insertMultiple, search as oramaSearch } from "@orama/orama";
import MiniSearch from "minisearch";

/** A tool flattened to the text fields every system indexes. */
export interface FlatTool {
  id: string;
  name: string;
  description: string;
  params: string;
  category: string;
}

/** One system under test: build once, then search for the top 10 ids. */
export interface BenchSystem {
  name: string;
  build(tools: FlatTool[], raw: unknown[]): void | Promise<void>;
  search(query: string): string[];
}

const splitIdentifier = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_\-.]+/g, " ");

/** Flattens a catalog record (the data sets use Anthropic shape) for the peers. */
export function flatten(record: Record<string, unknown>): FlatTool {
  const schema = (record.input_schema ?? {}) as { properties?: Record<string, { description?: string; enum?: unknown[] }> };
  const params = Object.entries(schema.properties ?? {}).map(([key, p]) => [key, p?.description ?? "", ...(Array.isArray(p?.enum) ? p.enum : [])].join(" "));
  const name = String(record.name);
  return { id: name, name: `${name} ${splitIdentifier(name)}`, description: String(record.description ?? ""), params: params.join(" "), category: String(record.category ?? "") };
}

const FIELDS = ["name", "description", "params", "category"];

export function miniSearch(mode: "exact" | "fuzzy"): BenchSystem {
  let index: MiniSearch<FlatTool>;
  const options = mode === "exact" ? { boost: { name: 3 } } : { boost: { name: 3 }, fuzzy: 0.2, prefix: true };
  return {
    name: mode === "exact" ? "minisearch" : "minisearch-fuzzy",
    build(tools) {
      index = new MiniSearch<FlatTool>({ fields: FIELDS, idField: "id" });
      index.addAll(tools);
    },
    search: (query) => index.search(query, options).slice(0, 10).map((r) => String(r.id)),
  };
}

export function orama(mode: "exact" | "typo"): BenchSystem {
  let db: ReturnType<typeof createDb>;
  const createDb = () => create({ schema: { id: "string", name: "string", description: "string", params: "string", category: "string" } as const });
  return {
    name: mode === "exact" ? "orama" : "orama-typo",
    build(tools) {
      db = createDb();
      insertMultiple(db, tools);
    },
    search(query) {
      const result = oramaSearch(db, { term: query, properties: FIELDS as ("name" | "description" | "params" | "category")[], boost: { name: 3 }, tolerance: mode === "exact" ? 0 : 1, limit: 10 });
      if (result instanceof Promise) throw new Error("orama search returned a promise; expected the synchronous build");
      return result.hits.map((h) => String(h.document.id));
    },
  };
}
