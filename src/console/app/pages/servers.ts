/**
 * An `mcp` collection's servers page (SPEC §15): each server with its transport and whether it needs an OAuth login,
 * is logged in, or holds an expired token, and the command that logs it in. Never a token: the service sends states.
 */
import { fill, h } from "../../dom.js";
import { api, when } from "../api.js";
import { errorBox, type PageContext } from "../ui.js";

interface ServerEntry {
  name: string;
  transport: "stdio" | "http";
  login: "none" | "machine" | "needs_login" | "logged_in" | "expired";
  refreshable?: boolean;
  expiresAt?: string;
  command?: string;
}

/** The words and severity class of each login state. */
function loginText(s: ServerEntry): { text: string; sev: string } {
  switch (s.login) {
    case "needs_login": return { text: "needs a login", sev: "error" };
    case "expired": return s.refreshable ? { text: "token expired, renews on the next call", sev: "warning" } : { text: "token expired: log in again", sev: "error" };
    case "logged_in": return { text: "logged in", sev: "ok" };
    case "machine": return { text: "machine account (client credentials)", sev: "ok" };
    default: return { text: s.transport === "stdio" ? "no login (local command)" : "no login asked for", sev: "muted" };
  }
}

export function serversPage({ main, collection }: PageContext): undefined {
  const c = collection!;
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  main.replaceChildren(h("h1", {}, `Servers of ${c.name}`),
    h("p", { class: "muted" }, "Remote servers that require OAuth answer calls only after a login; tokens are kept encrypted in the store and never shown."),
    body);
  api<{ servers: ServerEntry[] }>("GET", `/v1/collections/${encodeURIComponent(c.name)}/servers`).then(({ servers }) => fill(body,
    h("table", { class: "servers" },
      h("thead", {}, h("tr", {}, ["server", "transport", "login", "token expires", "to log in"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, servers.map((s) => {
        const login = loginText(s);
        return h("tr", { "data-server": s.name, "data-login": s.login },
          h("th", { scope: "row" }, s.name),
          h("td", {}, s.transport),
          h("td", {}, h("span", { class: `sev ${login.sev}` }, login.text)),
          h("td", {}, s.expiresAt ? h("time", { datetime: s.expiresAt }, when(s.expiresAt)) : "–"),
          h("td", {}, s.command ? h("code", {}, s.command) : ""));
      })))), (e) => fill(body, errorBox(e)));
  return undefined;
}
