/**
 * The web console (SPEC §12): a hash-routed single page over the service's REST API. Pages: collections, search
 * (every engine side by side as you type), an item (definition, lint findings, explanation), a collection's lint
 * report, and eval (upload labelled queries, see the report's charts). The charts library loads only on the eval
 * page, so the first load stays small.
 */
import { h, fill } from "../dom.js";
import { api, ApiError, type CollectionSummary, session } from "./api.js";
import { errorBox } from "./ui.js";
import { auditPage } from "./pages/audit.js";
import { collectionsPage } from "./pages/collections.js";
import { evalPage } from "./pages/eval.js";
import { itemPage } from "./pages/item.js";
import { curationPage } from "./pages/curation.js";
import { lintPage } from "./pages/lint.js";
import { reviewPage } from "./pages/review.js";
import { serversPage } from "./pages/servers.js";
import { searchPage } from "./pages/search.js";

import type { PageContext } from "./ui.js";

const app = document.getElementById("app")!;
const nav = h("nav", { class: "top", "aria-label": "main" });
const main = h("main", { id: "main", tabindex: -1 });
fill(app, h("a", { href: "#main", class: "skip" }, "Skip to content"), h("header", { class: "bar" }, h("a", { href: "#/", class: "brand" }, "toolsearch"), nav), main);

let collections: CollectionSummary[] | undefined;
let cleanup: (() => void) | undefined;

/** Routes: `#/`, `#/c/NAME/search?q=…`, `#/c/NAME/item/ID`, `#/c/NAME/lint`, `#/c/NAME/eval`, `#/c/NAME/curation`, `#/c/NAME/review` (mcp), `#/c/NAME/servers` (mcp), `#/audit?collection=…&who=…&since=…` (admin keys). */
async function route(): Promise<void> {
  cleanup?.();
  cleanup = undefined;
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  try {
    collections ??= (await api<{ collections: CollectionSummary[] }>("GET", "/v1/collections")).collections;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return askForKey(error.message);
    return showError(error);
  }
  const collection = parts[0] === "c" ? collections.find((c) => c.name === parts[1]) : undefined;
  drawNav(collection, parts[0] === "audit" ? "audit" : parts[2]);
  const context: PageContext = {
    main, collection, params, rest: parts.slice(3).join("/"),
    setParams: (next) => history.replaceState(null, "", `#/${parts.map(encodeURIComponent).join("/")}?${new URLSearchParams(next)}`),
  };
  if (parts[0] === "c" && !collection) return showError(new ApiError(404, "unknown_collection", `No collection named ${JSON.stringify(parts[1])}.`));
  const page = parts[2] ?? (collection ? "search" : "");
  document.title = collection ? `${collection.name} · ${page} · toolsearch` : parts[0] === "audit" ? "Audit log · toolsearch" : "Collections · toolsearch";
  try {
    if (parts[0] === "audit") cleanup = auditPage(context, collections);
    else if (!collection) cleanup = collectionsPage(context, collections);
    else if (page === "search") cleanup = searchPage(context);
    else if (page === "item") cleanup = itemPage(context);
    else if (page === "lint") cleanup = lintPage(context);
    else if (page === "curation" && collection.kind !== "docs") cleanup = curationPage(context);
    else if (page === "eval") cleanup = evalPage(context);
    else if (page === "review" && collection.kind === "mcp") cleanup = reviewPage(context);
    else if (page === "servers" && collection.kind === "mcp") cleanup = serversPage(context);
    else showError(new ApiError(404, "not_found", `No page ${JSON.stringify(page)}.`));
  } catch (error) {
    showError(error);
  }
}

function drawNav(collection: CollectionSummary | undefined, page: string | undefined): void {
  const link = (href: string, label: string, current: boolean) => h("a", { href, "aria-current": current ? "page" : undefined }, label);
  const c = collection ? `#/c/${encodeURIComponent(collection.name)}` : "";
  fill(nav,
    link("#/", "Collections", !collection && page !== "audit"),
    collection ? [
      h("span", { class: "sep" }, "›"), h("strong", {}, collection.name),
      link(`${c}/search`, "Search", page === "search" || page === undefined),
      collection.kind !== "docs" ? link(`${c}/lint`, "Lint", page === "lint") : null,
      collection.kind !== "docs" ? link(`${c}/curation`, "Curation", page === "curation") : null,
      link(`${c}/eval`, "Eval", page === "eval"),
      collection.kind === "mcp" ? link(`${c}/review`, "Review", page === "review") : null,
      collection.kind === "mcp" ? link(`${c}/servers`, "Servers", page === "servers") : null,
    ] : null,
    link("#/audit", "Audit", page === "audit"),
    session.key() ? h("button", { type: "button", class: "signout", onclick: signOut }, "Forget key") : null);
}

function signOut(): void {
  session.clear();
  collections = undefined;
  void route();
}

/** The key form: shown only when the service asks for a key (never under --no-auth). */
function askForKey(reason: string): void {
  fill(nav);
  const input = h("input", { id: "api-key", name: "key", type: "password", autocomplete: "off", required: true, size: 50 });
  const form = h("form", { class: "key" },
    h("h1", {}, "API key"),
    h("p", {}, "This service needs a key (", h("code", {}, "toolsearch keys create --scope read"), "). It is kept in this tab's session storage only."),
    session.key() ? h("p", { class: "error-box", role: "alert" }, reason) : null,
    h("label", { for: "api-key" }, "Key "), input, " ", h("button", { type: "submit" }, "Use key"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    session.setKey(input.value.trim());
    collections = undefined;
    void route();
  });
  fill(main, form);
  input.focus();
}

function showError(error: unknown): void {
  fill(main, errorBox(error));
}

window.addEventListener("hashchange", () => void route());
void route();
