/**
 * Manifests: what each upstream server offered when it last ran (its tools, resources, templates and prompts) and a hash of the configuration
 * block it ran with, kept in the store so that a restarted gateway can search every server without starting any.
 * The gateway reaches the store only through these three methods, so the embedded SQLite store, PostgreSQL, or the
 * service's gateways for `mcp` collections (owner `collection:<name>`) all work the same.
 *
 * @example
 * ```ts
 * const plan = await planLaunch(store, "gateway", { fs: configHash(config.mcpServers.fs) });
 * plan.known.get("fs"); // its tools when the manifest matched, so "fs" need not start
 * ```
 */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { ManifestOffer, Store } from "../store/types.js";

/** The part of the store the gateway uses. */
export type ManifestStore = Pick<Store, "getManifest" | "putManifest" | "deleteManifest">;

/** The owner string of the `toolsearch mcp` gateway's manifests. */
export const GATEWAY_OWNER = "gateway";

/** What to do with each configured server at launch. */
export interface LaunchPlan {
  /** Servers whose manifest matches their configuration: searchable now from these tools, started on first call. */
  known: Map<string, McpTool[]>;
  /**
   * The resources, templates and prompts of the known servers (an empty offer for a manifest written before manifests
   * held them: such a server lists none until it next runs).
   */
  offers: Map<string, ManifestOffer>;
  /** Servers to start now to learn their tools (no manifest, or their configuration changed). */
  unknown: string[];
  /** Servers whose manifest was dropped because their configuration block changed. */
  invalidated: string[];
}

/**
 * Reads each server's manifest; a manifest whose configuration hash differs is deleted (so a crash before the new
 * one is written cannot bring the old tool list back).
 */
export async function planLaunch(store: ManifestStore, owner: string, hashes: Record<string, string>): Promise<LaunchPlan> {
  const plan: LaunchPlan = { known: new Map(), offers: new Map(), unknown: [], invalidated: [] };
  await Promise.all(Object.entries(hashes).map(async ([server, hash]) => {
    const manifest = await store.getManifest(owner, server);
    if (manifest && manifest.configHash === hash) {
      plan.known.set(server, manifest.tools as McpTool[]);
      plan.offers.set(server, manifest.offer ?? { resources: [], resourceTemplates: [], prompts: [] });
      return;
    }
    if (manifest) {
      await store.deleteManifest(owner, server);
      plan.invalidated.push(server);
    }
    plan.unknown.push(server);
  }));
  plan.unknown.sort();
  plan.invalidated.sort();
  return plan;
}
