/**
 * An `mcp` collection's review page (SPEC §16): each upstream tool definition held for review (changed, new, or flagged
 * by the poisoning lint rules), with a readable diff of its description (word by word) and input schema (line by line)
 * against the definition served now, and buttons to approve or reject it. Held text is untrusted: it goes in as text
 * nodes, with invisible and bidirectional characters shown as `<U+…>`.
 */
import { fill, h } from "../../dom.js";
import type { DefinitionDiff, DiffPart } from "../../../trust/diff.js";
import { visible } from "../../../trust/diff.js";
import { api } from "../api.js";
import { errorBox, type PageContext } from "../ui.js";

interface HeldEntry {
  name: string;
  reason: "changed" | "new" | "flagged";
  since: string;
  findings: { rule: string; message: string }[];
  diff: DefinitionDiff;
}

const REASONS: Record<HeldEntry["reason"], string> = {
  changed: "changed since it was pinned",
  new: "new tool",
  flagged: "flagged by the poisoning lint rules",
};

export function reviewPage({ main, collection }: PageContext): undefined {
  const c = collection!;
  const path = `/v1/collections/${encodeURIComponent(c.name)}/review`;
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const status = h("p", { role: "status", class: "muted" });
  main.replaceChildren(h("h1", {}, `Review of ${c.name}`),
    h("p", { class: "muted" }, "Upstream tool definitions held back from agents. The served definition stays until you approve the change."),
    status, body);
  const draw = (held: HeldEntry[]) => fill(body, held.length
    ? held.map((entry) => heldCard(entry, decide))
    : h("p", {}, "Nothing is held for review."));
  const decide = (name: string, decision: "approve" | "reject") => {
    status.textContent = `${decision === "approve" ? "Approving" : "Rejecting"} ${name}…`;
    api<{ held: HeldEntry[] }>("POST", path, { [decision]: [name] }).then((answer) => {
      status.textContent = `${decision === "approve" ? "Approved" : "Rejected"} ${name}.`;
      draw(answer.held);
    }, (e) => fill(body, errorBox(e)));
  };
  api<{ held: HeldEntry[] }>("GET", path).then((answer) => draw(answer.held), (e) => fill(body, errorBox(e)));
  return undefined;
}

function heldCard(entry: HeldEntry, decide: (name: string, decision: "approve" | "reject") => void): HTMLElement {
  return h("section", { class: "held", "data-reason": entry.reason },
    h("h2", {}, h("code", {}, entry.name), " ", h("span", { class: `sev ${entry.reason === "flagged" ? "error" : "warning"}` }, REASONS[entry.reason])),
    h("p", { class: "muted" }, `held since ${entry.since}`),
    entry.findings.length ? h("ul", { class: "findings" }, entry.findings.map((f) => h("li", {}, h("code", {}, f.rule), ": ", visible(f.message)))) : null,
    h("h3", {}, "Description"),
    h("p", { class: "diff words" }, entry.diff.description.map(descriptionPart)),
    h("h3", {}, "Input schema"),
    entry.diff.schema.some((p) => p.op !== "same") ? h("pre", { class: "diff lines" }, entry.diff.schema.map(schemaPart)) : h("p", { class: "muted" }, "unchanged"),
    h("div", { class: "controls" },
      h("button", { type: "button", class: "approve", onclick: () => decide(entry.name, "approve") }, "Approve"),
      h("button", { type: "button", class: "reject", onclick: () => decide(entry.name, "reject") }, "Reject")));
}

function descriptionPart(part: DiffPart): Node | string {
  const text = visible(part.text);
  if (part.op === "added") return h("ins", {}, text);
  if (part.op === "removed") return h("del", {}, text);
  return text;
}

function schemaPart(part: DiffPart): HTMLElement {
  const mark = part.op === "added" ? "+ " : part.op === "removed" ? "- " : "  ";
  const lines = part.text.replace(/\n$/, "").split("\n").map((line) => `${mark}${visible(line)}\n`).join("");
  return h("span", { class: part.op }, lines);
}
