/**
 * Pinned tool definitions (SPEC §16): what the gateway serves of an upstream's tools when the upstream changes them.
 * The first definition seen of each tool is pinned (trust on first use); a later change, a tool added later, or a
 * definition the poisoning lint rules flag at error level is *held*: the pinned version (if any) keeps being served
 * and the held one waits for review. This module only decides; `PinBook` (pin-book.ts) keeps the state.
 *
 * @example
 * ```ts
 * const { served, updates } = reviewListing(owner, "math", listed, pinsOf("math"), { trustUpdates: false, trustNewTools: false });
 * ```
 */
import { createHash } from "node:crypto";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { lintTools } from "../lint/runner.js";
import { POISON_RULES } from "../lint/rules/poison.js";
import type { HoldReason, PinRecord } from "../store/types.js";

/** How much of an upstream's changes the gateway accepts without review. */
export interface PinPolicy {
  /** Accept changed definitions as they come (`--trust-updates`); flagged ones are still held. */
  trustUpdates: boolean;
  /** Accept tools the server adds after it was first seen (`"trust": "new-tools"`); flagged ones are still held. */
  trustNewTools: boolean;
}

/** A pin without its time: what `reviewListing` produces and the store takes. */
export type Pin = Omit<PinRecord, "updatedAt">;

/** What the gateway should serve of one listing, and the pins that changed because of it. */
export interface ListingReview {
  served: McpTool[];
  updates: Pin[];
}

/** The part of a definition that is pinned: a change to anything else (annotations, title) is not held. */
function pinnedPart(tool: McpTool): unknown {
  return { name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema ?? {} };
}

/** A digest of a definition's pinned part, independent of key order. */
export function definitionDigest(tool: unknown): string {
  return createHash("sha256").update(canonicalJson(pinnedPart(tool as McpTool))).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const ERROR_POISON_RULES = POISON_RULES.filter((r) => r.severity === "error").map((r) => r.id);

/** Error-level findings of the poisoning rules for each tool, by the tool's own name. */
export function poisonFindings(tools: McpTool[]): Map<string, { rule: string; message: string }[]> {
  const out = new Map<string, { rule: string; message: string }[]>();
  if (!tools.length) return out;
  const report = lintTools(tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })), { rules: ERROR_POISON_RULES });
  for (const f of report.findings) {
    const list = out.get(f.tool) ?? [];
    list.push({ rule: f.rule, message: f.message });
    out.set(f.tool, list);
  }
  return out;
}

/**
 * Decides, for one listing of a server's tools, which definition of each tool is served and which wait for review.
 * `pins` are the server's current pins by tool name; a server with none is seen for the first time, so its tools are
 * pinned as they are (unless flagged). Pins of tools the server no longer lists are kept (it may list them again).
 */
export function reviewListing(owner: string, server: string, listed: McpTool[], pins: Map<string, PinRecord>, policy: PinPolicy): ListingReview {
  const firstSight = pins.size === 0;
  const unpinned = listed.filter((tool) => {
    const pin = pins.get(tool.name);
    return !pin?.pinned || definitionDigest(pin.pinned) !== definitionDigest(tool);
  });
  const flags = poisonFindings(unpinned);
  const served: McpTool[] = [];
  const updates: Pin[] = [];
  for (const tool of listed) {
    const pin = pins.get(tool.name);
    const digest = definitionDigest(tool);
    const findings = flags.get(tool.name);
    const base: Pin = { owner, server, tool: tool.name, ...(pin?.pinned ? { pinned: pin.pinned } : {}), ...(pin?.rejected ? { rejected: pin.rejected } : {}) };
    if (pin?.pinned && definitionDigest(pin.pinned) === digest) {
      served.push(pin.pinned as McpTool);
      // The upstream went back to the pinned definition: nothing waits any more.
      if (pin.held) updates.push(base);
      continue;
    }
    const trusted = pin?.pinned ? policy.trustUpdates : firstSight || policy.trustNewTools;
    if (trusted && !findings) {
      served.push(tool);
      updates.push({ owner, server, tool: tool.name, pinned: tool });
      continue;
    }
    if (pin?.pinned) served.push(pin.pinned as McpTool);
    const reason: HoldReason = findings ? "flagged" : pin?.pinned ? "changed" : "new";
    const alreadyHeld = pin?.held !== undefined && definitionDigest(pin.held) === digest && pin.reason === reason;
    if (alreadyHeld || pin?.rejected === digest) continue;
    updates.push({ ...base, held: tool, reason, ...(findings ? { findings } : {}) });
  }
  return { served, updates };
}

/** A decision on one held definition. */
export type Decision = "approve" | "reject";

/**
 * Applies a review decision to a pin: approving serves the held definition from now on; rejecting drops it and
 * remembers its digest, so that the same definition is not raised again (a different one will be).
 */
export function decide(pin: PinRecord, decision: Decision): Pin {
  const { updatedAt: _time, held, reason: _reason, findings: _findings, ...rest } = pin;
  if (decision === "approve") {
    const { rejected: _rejected, ...kept } = rest;
    return { ...kept, pinned: held };
  }
  return { ...rest, rejected: definitionDigest(held) };
}
