/**
 * Import cost on a large generated API: N operations over N/10 resources whose schemas refer to each other (a cycle
 * through every resource, as enterprise APIs do), imported into a catalog and loaded into a ToolIndex.
 *
 *   node --import tsx scripts/scale-openapi.ts [N]    (default 5000)
 *
 * Reports the time to import and to index, the catalog's size, and the largest input schema (cycles and deep
 * references go to `$defs`, so no schema grows with the size of the API).
 */
import { catalogFromOpenApi } from "../src/openapi/catalog.js";
import { ToolIndex } from "../src/indexes/tool-index.js";

const operations = Number(process.argv[2] ?? 5000);
const resources = Math.max(1, Math.round(operations / 10));

function generate(): object {
  const schemas: Record<string, unknown> = {};
  const paths: Record<string, unknown> = {};
  for (let r = 0; r < resources; r++) {
    const next = `Resource${(r + 1) % resources}`;
    schemas[`Resource${r}`] = {
      type: "object",
      required: ["name"],
      properties: {
        name: { type: "string", description: `Name of resource ${r}` },
        status: { type: "string", enum: ["active", "archived"] },
        related: { type: "array", items: { $ref: `#/components/schemas/${next}` } },
        owner: { $ref: "#/components/schemas/Owner" },
      },
    };
    for (let k = 0; k < 10 && r * 10 + k < operations; k++) {
      paths[`/resource${r}/action${k}/{id}`] = {
        post: {
          operationId: `resource${r}Action${k}`,
          summary: `Run action ${k} on resource ${r}`,
          tags: [`resource${r}`],
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, { name: "dry_run", in: "query", schema: { type: "boolean", default: false } }],
          requestBody: { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/Resource${r}` } } } },
          responses: { "200": { description: "Done." } },
        },
      };
    }
  }
  schemas.Owner = { type: "object", properties: { id: { type: "string" }, manager: { $ref: "#/components/schemas/Owner" } } };
  return { openapi: "3.0.3", info: { title: "Generated", version: "1" }, servers: [{ url: "http://127.0.0.1:1" }], paths, components: { schemas } };
}

const spec = generate();
let started = performance.now();
const catalog = await catalogFromOpenApi(spec);
const importMs = performance.now() - started;
started = performance.now();
const index = await ToolIndex.fromTools(catalog.tools);
const indexMs = performance.now() - started;
const sizes = catalog.tools.map((t) => JSON.stringify(t).length);
const total = sizes.reduce((a, b) => a + b, 0);
const hit = (await index.search("run action 3 on resource 42", { limit: 1 }))[0]?.name;
process.stdout.write([
  `${catalog.tools.length} tools (${catalog.skipped.length} skipped) from ${operations} operations over ${resources} resources`,
  `import: ${importMs.toFixed(0)} ms (${(importMs / catalog.tools.length).toFixed(2)} ms per operation); index (bm25): ${indexMs.toFixed(0)} ms`,
  `catalog JSON: ${(total / 1024 / 1024).toFixed(1)} MiB; largest tool ${Math.max(...sizes)} characters, mean ${Math.round(total / sizes.length)}`,
  `top hit for "run action 3 on resource 42": ${hit}`,
].join("\n") + "\n");
