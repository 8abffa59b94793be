import { screenText } from "./src/trust/screen.js";
import { HONEST_RESULTS } from "./test/fixtures/screen-corpus/honest.js";
import { INJECTED_RESULTS } from "./test/fixtures/screen-corpus/injected.js";
let fp = 0;
for (const t of HONEST_RESULTS) { const f = screenText(t); if (f.length) { fp++; console.log("FP", JSON.stringify(f), t.slice(0, 100)); } }
console.log(`honest ${HONEST_RESULTS.length}, flagged ${fp}`);
for (const r of INJECTED_RESULTS) { const f = screenText(r.text); console.log(f.length ? "ok  " : "MISS", r.kind, JSON.stringify(f.map(x=>x.rule))); }
