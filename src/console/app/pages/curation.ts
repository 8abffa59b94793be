/**
 * A tool collection's curation (SPEC §17): its synonyms and pinned rules as JSON to edit and save, and a query box
 * whose bm25 results (with what synonyms and rules did to each, from explain) show the effect of a save at once.
 */
import { fill, h } from "../../dom.js";
import { api, type Hit } from "../api.js";
import { errorBox, type PageContext } from "../ui.js";

interface Explained {
  synonyms?: { term: string; added: string[] }[];
  pinned?: { rule: string; position: number };
  learned?: { contribution: number };
}

export function curationPage({ main, collection }: PageContext): undefined {
  const c = encodeURIComponent(collection!.name);
  const editor = (kind: "synonyms" | "rules") => {
    const text = h("textarea", { id: `curation-${kind}`, name: kind, rows: 8, cols: 60, spellcheck: false });
    const status = h("span", { class: "muted", role: "status" });
    const save = h("button", { type: "button" }, `Save ${kind}`);
    api("GET", `/v1/collections/${c}/${kind}`).then((value) => (text.value = JSON.stringify(value, null, 2)), (e) => fill(status, errorBox(e)));
    save.addEventListener("click", async () => {
      fill(status, "Saving…");
      try {
        await api("PUT", `/v1/collections/${c}/${kind}`, JSON.parse(text.value));
        fill(status, "Saved.");
        await runQuery();
      } catch (error) {
        fill(status, errorBox(error));
      }
    });
    return h("section", { class: "curation" }, h("h2", {}, h("label", { for: `curation-${kind}` }, kind === "synonyms" ? "Synonyms" : "Pinned rules")), text, h("p", {}, save, " ", status));
  };
  const query = h("input", { id: "curation-query", name: "q", type: "search", placeholder: "a query to try", size: 40 });
  const results = h("div", {});
  const runQuery = async () => {
    const q = query.value.trim();
    if (!q) return fill(results);
    try {
      const { results: hits } = await api<{ results: Hit[] }>("POST", `/v1/collections/${c}/search`, { query: q, limit: 5 });
      const why = await Promise.all(hits.map((hit) => api<Explained>("POST", `/v1/collections/${c}/explain`, { query: q, name: hit.name })));
      fill(results, h("ol", { class: "curation-results" }, hits.map((hit, i) => h("li", {},
        h("code", {}, hit.name!), ` ${hit.score.toFixed(3)}`,
        why[i].pinned ? h("span", { class: "sev info" }, ` pinned by ${why[i].pinned!.rule}`) : null,
        why[i].synonyms?.length ? h("span", { class: "muted" }, ` synonyms: ${why[i].synonyms!.map((s) => `${s.term} → ${s.added.join(", ")}`).join("; ")}`) : null,
        why[i].learned ? h("span", { class: "muted" }, ` learned +${why[i].learned!.contribution.toFixed(3)}`) : null))));
    } catch (error) {
      fill(results, errorBox(error));
    }
  };
  query.addEventListener("change", () => void runQuery());
  main.replaceChildren(
    h("h1", {}, `Curation of ${collection!.name}`),
    h("p", { class: "muted" }, "Synonyms widen queries; a rule whose pattern (* for anything) matches the whole query puts its tools first. Saving applies them at once."),
    editor("synonyms"), editor("rules"),
    h("section", {}, h("h2", {}, h("label", { for: "curation-query" }, "Try a query")), query, results));
  return undefined;
}
