/**
 * The gateway's launch snapshot: the index built from the manifests at the last launch, kept in the store, so that
 * the next launch with the same servers, tool lists and filters loads it instead of checking and analyzing every
 * tool again. That is what keeps a launch from manifests flat in the number of servers (docs/benchmarks.md, "Launch
 * time"): one store value read and decoded, however many servers there are.
 *
 * It is only a cache: it is tagged with a hash of everything the index is built from (`launchKey`) and used only when
 * that hash matches; anything else builds the index from the manifests as before and stores a new snapshot. With it
 * go the positions of the tools each server had indexed (so routes come out exactly as a build makes them) and the
 * lines the build logged (tools skipped as invalid or already taken), which a launch from the snapshot logs again.
 * Like the service's snapshots (server/snapshots.ts), it lives in the store's settings: one per set of server names
 * (`gateway-index:<owner>:<hash of the names>`), so two configurations sharing a store (say, two MCP clients) do not
 * overwrite each other's, and at most `KEPT_SETS` of them per owner, the least recently saved dropped first.
 *
 * @example
 * ```ts
 * const servers: KnownServer[] = [["fs", configHash(config), manifestTools, { tools: config.tools }]];
 * const key = launchKey("gateway", servers);
 * const saved = await readLaunchSnapshot(store, launchSnapshotKey("gateway", servers), key); // undefined unless the key matches
 * ```
 */
import { createHash } from "node:crypto";
import type { Store } from "../store/types.js";
import type { ServerControls } from "./config.js";

/** The part of a store that keeps launch snapshots (settings); stores without it simply get none. */
export type SnapshotSettings = Pick<Store, "getSetting" | "setSetting">;

/** Bumped whenever what a snapshot holds or how it is built changes, so older ones are rebuilt, not misread. */
// 2: `indexed` positions count in the pinned listing before the allow/deny filter (issue 38).
const FORMAT = 2;

/** Snapshots kept per owner (one per set of server names), so that editing a configuration often leaves no trail. */
export const KEPT_SETS = 4;

/** What a launch snapshot holds besides the index. */
export interface LaunchSnapshot {
  /** `ToolIndex.snapshot()` of the index built from the manifests. */
  bytes: Buffer;
  /** Per server, the positions (in its manifest's tool list) of the tools that went into the index. */
  indexed: Record<string, number[]>;
  /** What the build logged about these servers' tools, in order. */
  notes: string[];
}

interface StoredValue {
  format: number;
  key: string;
  indexed: Record<string, number[]>;
  notes: string[];
  data: string;
}

/** One server as the index is built from it: name, configuration hash, manifest tools, and `tools`/`alwaysLoad`. */
export type KnownServer = [name: string, configHash: string, tools: unknown[], controls: ServerControls];

/** A hash of everything a launch index is built from, servers in configuration order. */
export function launchKey(owner: string, servers: KnownServer[]): string {
  const hash = createHash("sha256").update(JSON.stringify([FORMAT, owner]));
  for (const [name, configHash, tools, controls] of servers) hash.update(JSON.stringify([name, configHash, controls.tools ?? null, controls.alwaysLoad ?? null, tools]));
  return hash.digest("hex");
}

/** The settings key of the launch snapshot of these servers (by name, in order). */
export function launchSnapshotKey(owner: string, servers: KnownServer[]): string {
  const names = createHash("sha256").update(JSON.stringify(servers.map(([name]) => name))).digest("hex").slice(0, 16);
  return `${setsKey(owner)}:${names}`;
}

/** The settings key of the list of an owner's snapshot keys, most recently saved first. */
function setsKey(owner: string): string {
  return `gateway-index:${owner}`;
}

/** The stored snapshot when its key is `key`; undefined when there is none, it is stale, or it has an unknown shape. */
export async function readLaunchSnapshot(store: SnapshotSettings, setting: string, key: string): Promise<LaunchSnapshot | undefined> {
  const value = (await store.getSetting(setting)) as Partial<StoredValue> | undefined;
  if (!value || value.format !== FORMAT || value.key !== key || typeof value.data !== "string") return undefined;
  if (!Array.isArray(value.notes) || typeof value.indexed !== "object" || value.indexed === null) return undefined;
  return { bytes: Buffer.from(value.data, "base64"), indexed: value.indexed, notes: value.notes };
}

/**
 * Stores a launch snapshot under `setting` (from `launchSnapshotKey`), replacing that set's previous one, and drops
 * the owner's least recently saved ones beyond `KEPT_SETS`.
 */
export async function saveLaunchSnapshot(store: SnapshotSettings, owner: string, setting: string, key: string, snapshot: LaunchSnapshot): Promise<void> {
  const value: StoredValue = { format: FORMAT, key, indexed: snapshot.indexed, notes: snapshot.notes, data: snapshot.bytes.toString("base64") };
  await store.setSetting(setting, value);
  const listed = await store.getSetting(setsKey(owner));
  const recent = [setting, ...(Array.isArray(listed) ? listed.filter((s): s is string => typeof s === "string" && s !== setting) : [])];
  await store.setSetting(setsKey(owner), recent.slice(0, KEPT_SETS));
  for (const dropped of recent.slice(KEPT_SETS)) await store.setSetting(dropped, undefined);
}

/** Deletes every launch snapshot of an owner and its list (for an owner that is gone, e.g. a deleted collection). */
export async function deleteLaunchSnapshots(store: SnapshotSettings, owner: string): Promise<void> {
  const listed = await store.getSetting(setsKey(owner));
  for (const setting of Array.isArray(listed) ? listed : []) if (typeof setting === "string") await store.setSetting(setting, undefined);
  await store.setSetting(setsKey(owner), undefined);
}

/** Whether a manifest store also keeps settings (every `Store` does; a bare manifest store may not). */
export function hasSettings(store: object): store is SnapshotSettings {
  const candidate = store as Partial<SnapshotSettings>;
  return typeof candidate.getSetting === "function" && typeof candidate.setSetting === "function";
}
