const { readRecords } = await import(process.cwd() + "/src/catalog/read-records.ts");
const { checkCatalog } = await import(process.cwd() + "/src/catalog/validate.ts");
const js = await import(process.cwd() + "/src/catalog/json-schema.ts").catch(() => undefined);
const items = readRecords("/work/shared/data/scale/catalog.json", ["tools"]);
const schemas = items.map((t: any) => t.input_schema ?? t.inputSchema ?? t.parameters).filter(Boolean);
for (let i = 0; i < 4; i++) { const t = performance.now(); checkCatalog(items, "x"); console.log("check", (performance.now() - t).toFixed(0)); }
if (js) for (const f of ["schemaSizeProblem", "guessDraft", "schemaDraftCheck"]) { const t = performance.now(); for (let k = 0; k < 3; k++) for (const s of schemas) js[f](s); console.log(f, ((performance.now() - t) / 3).toFixed(0)); }
