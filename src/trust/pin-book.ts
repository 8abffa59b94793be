/**
 * The pin book: one gateway's pinned tool definitions and held changes, read from the store at start and written back
 * as they change. The store is the source of truth (replicas share it, restarts read it); this is its cache.
 *
 * @example
 * ```ts
 * const book = await PinBook.open(store, "gateway", { trustUpdates: false, trustNewTools: () => false });
 * const served = book.apply("math", listedTools); // pinned definitions; changes wait in book.held()
 * await book.decide({ approve: ["math__add"] });
 * ```
 */
import { createHash, randomUUID } from "node:crypto";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { ToolsearchError } from "../errors.js";
import type { HoldReason, PinRecord, Store } from "../store/types.js";
import { type Decision, decide, definitionDigest, type Pin, type PinPolicy, reviewListing } from "./pins.js";

/**
 * The part of the store the pin book uses. With settings, each decision also leaves a mark there, which a running
 * gateway polls (`changedElsewhere`) to serve a decision made by another process without a restart.
 */
export type PinStore = Pick<Store, "listPins" | "putPins" | "claimPins"> & Partial<Pick<Store, "getSetting" | "setSetting">>;

/** The settings key of an owner's last review decision (a fresh id per decision, so any change shows). */
function decisionMarkKey(owner: string): string {
  return `pins-decided:${owner}`;
}

/** How a gateway pins its upstreams' tools. */
export interface PinOptions {
  /** Accept changed definitions without review (`--trust-updates`). Flagged definitions are still held. */
  trustUpdates?: boolean;
  /** Whether a server accepts tools it adds later without review (its block says `"trust": "new-tools"`). */
  trustNewTools?: (server: string) => boolean;
  /** A reviewed set of definitions to pin, by server (`--pin-from FILE`): these replace what was pinned. */
  pinFrom?: Record<string, McpTool[]>;
  /** Where write failures are told (default: stderr). */
  log?: (line: string) => void;
  /**
   * Called once per stored review decision: the hook for the audit log (SPEC §16, issue 24 item 4), which records
   * review decisions. Nothing is wired to it yet; the audit module connects here.
   */
  onDecision?: (event: ReviewDecisionEvent) => void;
  /**
   * Called when what `apply` served for a server no longer holds: another replica pinned a different first
   * definition of one of its tools at the same moment. The caller re-applies the server's listing.
   */
  onServedChange?: (server: string) => void;
}

/** One stored review decision, as the audit hook receives it. */
export interface ReviewDecisionEvent {
  owner: string;
  /** The namespaced tool name. */
  name: string;
  decision: "approve" | "reject";
  /** Digest of the definition approved or rejected. */
  definition: string;
}

/** One held definition, as review shows it. */
export interface HeldTool {
  /** The namespaced name (`server__tool`) agents know the tool by. */
  name: string;
  server: string;
  tool: string;
  reason: HoldReason;
  /** What is served now (absent for a tool never approved). */
  pinned?: McpTool;
  /** What waits for review. */
  held: McpTool;
  findings: { rule: string; message: string }[];
  since: string;
}

/** Decisions by namespaced name. */
export interface ReviewDecisions {
  approve?: string[];
  reject?: string[];
}

export class PinBook {
  private readonly byServer = new Map<string, Map<string, PinRecord>>();
  private saving: Promise<void> = Promise.resolve();
  private readonly log: (line: string) => void;
  /** The decision mark as of the last reload or own decision (JSON text; "" for none). */
  private seenMark = "";

  private constructor(
    private readonly store: PinStore,
    readonly owner: string,
    private readonly options: PinOptions,
  ) {
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  }

  /** Reads the owner's pins from the store (after writing a `--pin-from` set into it). */
  static async open(store: PinStore, owner: string, options: PinOptions = {}): Promise<PinBook> {
    const book = new PinBook(store, owner, options);
    await book.reload();
    if (options.pinFrom) await book.pinReviewed(options.pinFrom);
    return book;
  }

  /** Re-reads every pin from the store (another replica or `toolsearch mcp review` may have decided). */
  async reload(): Promise<void> {
    // The mark first: a decision stored between the two reads is then seen again by the next `changedElsewhere`.
    this.seenMark = await this.readMark();
    const pins = await this.store.listPins(this.owner);
    this.byServer.clear();
    for (const pin of pins) this.pinsOf(pin.server).set(pin.tool, pin);
  }

  private async pinReviewed(sets: Record<string, McpTool[]>): Promise<void> {
    const pins: Pin[] = [];
    for (const [server, tools] of Object.entries(sets)) {
      for (const tool of tools) {
        const old = this.pinsOf(server).get(tool.name);
        const stillHeld = old?.held !== undefined && definitionDigest(old.held) !== definitionDigest(tool);
        pins.push({ owner: this.owner, server, tool: tool.name, pinned: tool, ...(stillHeld ? { held: old!.held, reason: old!.reason, findings: old!.findings } : {}) });
      }
    }
    await this.store.putPins(pins);
    await this.reload();
  }

  private pinsOf(server: string): Map<string, PinRecord> {
    let pins = this.byServer.get(server);
    if (!pins) this.byServer.set(server, (pins = new Map()));
    return pins;
  }

  /** The definitions to serve of a server's listing; changes are held and written to the store in the background. */
  apply(server: string, listed: McpTool[]): McpTool[] {
    const policy = this.policy(server);
    const pins = this.pinsOf(server);
    const { served, updates } = reviewListing(this.owner, server, listed, pins, policy);
    // A first pin (no definition pinned before) is claimed, not overwritten: another replica may be pinning another.
    const claims = updates.filter((pin) => pin.pinned !== undefined && pins.get(pin.tool)?.pinned === undefined);
    const writes = updates.filter((pin) => !claims.includes(pin));
    for (const pin of updates) {
      this.logHeld(pin);
      this.remember(pin);
    }
    this.save(writes, claims);
    return served;
  }

  private logHeld(pin: Pin): void {
    if (pin.held) this.log(`toolsearch mcp: ${pin.server}/${pin.tool} is held for review (${pin.reason}): toolsearch mcp review`);
  }

  private policy(server: string): PinPolicy {
    return { trustUpdates: this.options.trustUpdates ?? false, trustNewTools: this.options.trustNewTools?.(server) ?? false };
  }

  /** Every held definition, by server then tool. */
  held(): HeldTool[] {
    const out: HeldTool[] = [];
    for (const [server, pins] of [...this.byServer].sort(([a], [b]) => a.localeCompare(b))) {
      for (const pin of [...pins.values()].sort((a, b) => a.tool.localeCompare(b.tool))) {
        if (pin.held === undefined) continue;
        out.push({
          name: `${server}__${pin.tool}`, server, tool: pin.tool, reason: pin.reason ?? "changed",
          ...(pin.pinned ? { pinned: pin.pinned as McpTool } : {}), held: pin.held as McpTool, findings: pin.findings ?? [], since: pin.updatedAt,
        });
      }
    }
    return out;
  }

  /**
   * Approves or rejects held definitions (by namespaced name) and stores the decisions together; returns the servers
   * whose served tools changed. A name that holds nothing is refused with `unknown_tool`, and then nothing is decided.
   */
  async decide(decisions: ReviewDecisions): Promise<string[]> {
    const held = new Map(this.held().map((h) => [h.name, h]));
    const chosen: [string, Decision][] = [
      ...(decisions.approve ?? []).map((name): [string, Decision] => [name, "approve"]),
      ...(decisions.reject ?? []).map((name): [string, Decision] => [name, "reject"]),
    ];
    const missing = chosen.filter(([name]) => !held.has(name)).map(([name]) => name);
    if (missing.length) {
      throw new ToolsearchError("unknown_tool", `Nothing is held for review under ${missing.map((n) => JSON.stringify(n)).join(", ")}; held: ${[...held.keys()].join(", ") || "none"}.`);
    }
    const pins = chosen.map(([name, decision]) => {
      const { server, tool } = held.get(name)!;
      return decide(this.pinsOf(server).get(tool)!, decision);
    });
    await this.store.putPins(pins);
    // The decision stands without its mark; only a running gateway elsewhere then sees it later (at its restart).
    await this.leaveMark().catch((error: unknown) => this.log(`toolsearch mcp: could not announce the review decision to running gateways: ${error instanceof Error ? error.message : String(error)}`));
    for (const pin of pins) this.remember(pin);
    for (const [name, decision] of chosen) this.options.onDecision?.({ owner: this.owner, name, decision, definition: definitionDigest(held.get(name)!.held) });
    return [...new Set(pins.map((p) => p.server))];
  }

  /**
   * Whether a decision was stored since this book last read the store (by `toolsearch mcp review` in another
   * process, another replica, or REST): one small settings read, so a gateway can afford to ask every few seconds.
   * Always false for a store without settings.
   */
  async changedElsewhere(): Promise<boolean> {
    return (await this.readMark()) !== this.seenMark;
  }

  private async readMark(): Promise<string> {
    if (!this.store.getSetting) return "";
    return JSON.stringify((await this.store.getSetting(decisionMarkKey(this.owner))) ?? null);
  }

  private async leaveMark(): Promise<void> {
    if (!this.store.setSetting) return;
    const mark = { id: randomUUID(), at: new Date().toISOString() };
    await this.store.setSetting(decisionMarkKey(this.owner), mark);
    this.seenMark = JSON.stringify(mark);
  }

  /** A digest of every pin's state: equal digests serve the same definitions of the same listings. */
  digest(): string {
    const hash = createHash("sha256");
    for (const [server, pins] of [...this.byServer].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      for (const pin of [...pins.values()].sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0))) {
        const digestOf = (tool: unknown) => (tool === undefined ? "" : definitionDigest(tool));
        hash.update(JSON.stringify([server, pin.tool, digestOf(pin.pinned), digestOf(pin.held), pin.reason ?? "", pin.rejected ?? ""]));
      }
    }
    return hash.digest("hex");
  }

  /** Resolves once every background write so far has been attempted. */
  whenSaved(): Promise<void> {
    return this.saving;
  }

  /**
   * Writes held changes unless the store already decided them: another replica (or `toolsearch mcp review`) may have
   * approved or rejected that very definition since this one read its pins, and a decision must not be undone.
   */
  private async putFresh(updates: Pin[]): Promise<void> {
    const stored = new Map((await this.store.listPins(this.owner)).map((pin) => [`${pin.server}\u0000${pin.tool}`, pin]));
    const fresh = updates.filter((update) => {
      const current = stored.get(`${update.server}\u0000${update.tool}`);
      if (!update.held || !current) return true;
      const held = definitionDigest(update.held);
      const decided = (current.pinned !== undefined && definitionDigest(current.pinned) === held) || current.rejected === held;
      if (decided) this.pinsOf(update.server).set(update.tool, current);
      return !decided;
    });
    await this.store.putPins(fresh);
  }

  /**
   * Claims first pins; where another replica pinned first, its pin is taken as if it had been read before the listing,
   * and this replica's own definition is reviewed against it (held as changed, unless updates are trusted).
   */
  private async claimFirst(claims: Pin[]): Promise<void> {
    const lost = await this.store.claimPins(claims);
    const changed = new Set<string>();
    const writes: Pin[] = [];
    for (const winner of lost) {
      const own = claims.find((c) => c.server === winner.server && c.tool === winner.tool)!.pinned as McpTool;
      this.pinsOf(winner.server).set(winner.tool, winner);
      if (winner.pinned !== undefined && definitionDigest(winner.pinned) === definitionDigest(own)) continue;
      const { updates } = reviewListing(this.owner, winner.server, [own], this.pinsOf(winner.server), this.policy(winner.server));
      for (const pin of updates) {
        this.logHeld(pin);
        this.remember(pin);
      }
      writes.push(...updates);
      changed.add(winner.server);
    }
    await this.store.putPins(writes);
    for (const server of changed) this.options.onServedChange?.(server);
  }

  private remember(pin: Pin): void {
    this.pinsOf(pin.server).set(pin.tool, { ...pin, updatedAt: new Date().toISOString() });
  }

  private save(updates: Pin[], claims: Pin[]): void {
    if (!updates.length && !claims.length) return;
    // Chained, so writes land in the order the listings came.
    this.saving = this.saving.then(async () => {
      if (updates.length) await this.putFresh(updates);
      if (claims.length) await this.claimFirst(claims);
    }).catch((error: unknown) => {
      this.log(`toolsearch mcp: could not save pinned definitions: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}
