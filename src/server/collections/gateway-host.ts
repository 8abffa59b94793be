/**
 * Hosts the MCP gateway of each collection (behind `/mcp/{c}`): an `mcp` collection's gateway is its index and starts
 * at load; a `tools` or `docs` collection gets one on its first MCP session, one start shared by concurrent sessions.
 * A gateway outlives a replace of its collection: the open sessions are handed over to the new gateway and see the
 * new tools; deleting the collection ends them.
 *
 * An `mcp` collection keeps its upstreams' manifests, pinned definitions and launch snapshots in the store (owner
 * `collection:<name>`), so after a restart it is searchable without starting any server, and a server starts on the
 * first call that needs it (SPEC §11). The host removes what a replace or a delete leaves unused.
 *
 * The gateway module (and with it the MCP SDK) is imported when a collection first needs one: a replica that serves
 * no MCP session and no `mcp` collection never loads it, which shortens its start-up.
 *
 * @example
 * const host = new GatewayHost({ store, log, usage: (name) => signals.hookFor(name) });
 * const gateway = await host.gatewayOf(collection); // created on first use
 * await host.replace(previous, next); // sessions handed over, old gateway closed
 */
import { parseGatewayConfig } from "../../mcp/config.js";
import type { Gateway, GatewayOptions, GatewayUsage } from "../../mcp/gateway.js";
import { deleteLaunchSnapshots } from "../../mcp/launch-snapshot.js";
import type { CollectionRecord, Store } from "../../store/types.js";
import type { ScreenMode } from "../../trust/screen.js";
import { type LoadedCollection, messageOf } from "./types.js";

/** What `GatewayHost` needs. */
export interface GatewayHostOptions {
  store: Store;
  /** Upstream timeouts, restarts and idle stop for `mcp` collections. */
  upstream?: GatewayOptions["upstream"];
  exposeFound?: boolean;
  trustUpdates?: boolean;
  screenResults?: ScreenMode;
  log: (line: string) => void;
  /** Where a collection's sessions record their usage events (`UsageSignals.hookFor`). */
  usage: (collection: string) => GatewayUsage;
}

/** Owner of an `mcp` collection's manifests (and pins, and launch snapshots) in the store. */
export function manifestOwner(collection: string): string {
  return `collection:${collection}`;
}

function gatewayModule(): Promise<typeof import("../../mcp/gateway.js")> {
  return import("../../mcp/gateway.js");
}

export class GatewayHost {
  /** Gateways of `tools` and `docs` collections being created, so that concurrent first sessions share one. */
  private readonly starts = new WeakMap<LoadedCollection, Promise<Gateway>>();

  constructor(private readonly options: GatewayHostOptions) {}

  /** Starts an `mcp` collection's gateway: its index is the upstream tools, searchable from stored manifests. */
  async startMcp(record: CollectionRecord): Promise<Gateway> {
    const { Gateway } = await gatewayModule();
    const { store, log } = this.options;
    return Gateway.start({
      config: parseGatewayConfig(record.config, `collection ${record.name}`),
      // Servers whose stored manifest matches their block are searchable now and start on their first call.
      manifests: store,
      owner: manifestOwner(record.name),
      // Upstream definitions are pinned; changes wait for review (routes/review.ts).
      pins: { store, trustUpdates: this.options.trustUpdates },
      screenResults: this.options.screenResults,
      waitForUpstreams: false,
      exposeFound: this.options.exposeFound,
      upstream: this.options.upstream,
      log,
      usage: this.options.usage(record.name),
    });
  }

  /** The gateway behind `/mcp/{c}`, created on first use for `tools` and `docs` collections. */
  gatewayOf(collection: LoadedCollection): Promise<Gateway> {
    if (collection.gateway) return Promise.resolve(collection.gateway);
    let starting = this.starts.get(collection);
    if (!starting) {
      starting = gatewayModule()
        .then(({ Gateway }) => Gateway.start({
          catalog: collection.tools, docs: collection.docs, docsCollection: collection.name, exposeFound: this.options.exposeFound, log: this.options.log,
          usage: collection.tools && this.options.usage(collection.name),
        }))
        .then((gateway) => (collection.gateway = gateway));
      this.starts.set(collection, starting);
    }
    return starting;
  }

  /** The gateway a collection has or is creating, without creating one. */
  async existing(collection: LoadedCollection | undefined): Promise<Gateway | undefined> {
    return collection && (collection.gateway ?? (await this.starts.get(collection)));
  }

  /** Whether a collection must stay loaded: an MCP session uses it or its gateway is starting. */
  isBusy(collection: LoadedCollection): boolean {
    if (collection.gateway && collection.gateway.sessionCount > 0) return true;
    return !collection.gateway && this.starts.has(collection);
  }

  /**
   * Hands the open MCP sessions of a replaced collection to its new gateway (creating it for `tools` and `docs`),
   * then closes the old one (its upstreams stop). A collection of another kind cannot replace one (409), but a
   * reload after a pruned log could meet one: its sessions end.
   */
  async replace(previous: LoadedCollection | undefined, next: LoadedCollection): Promise<void> {
    const old = await this.existing(previous);
    if (!old) return;
    if (previous!.kind === next.kind && old.sessionCount > 0) old.handOver(await this.gatewayOf(next));
    await old.close();
    if (previous!.kind === "mcp") {
      const kept = new Set(next.kind === "mcp" ? serverNames(next.config) : []);
      await this.forgetManifests(next.name, serverNames(previous!.config).filter((server) => !kept.has(server)));
    }
  }

  /**
   * Ends a deleted collection's gateway (its open sessions are told the collection is gone, routes/mcp.ts) and, for
   * an `mcp` collection, deletes what it kept in the store: manifests, pinned definitions, launch snapshots.
   */
  async retire(gone: LoadedCollection | undefined): Promise<void> {
    await (await this.existing(gone))?.close();
    if (gone?.kind !== "mcp") return;
    const { store, log } = this.options;
    const owner = manifestOwner(gone.name);
    await this.forgetManifests(gone.name, serverNames(gone.config));
    await store.deletePins(owner).catch((error: unknown) => log(`toolsearch serve: could not delete the pinned definitions of ${gone.name}: ${messageOf(error)}`));
    await deleteLaunchSnapshots(store, owner).catch((error: unknown) => log(`toolsearch serve: could not delete the launch snapshots of ${gone.name}: ${messageOf(error)}`));
  }

  /** Closes the gateways of `collections`, started or starting (`close`: upstream processes end). */
  async closeAll(collections: LoadedCollection[]): Promise<void> {
    const gateways = await Promise.all(collections.map((collection) => this.existing(collection)));
    await Promise.all(gateways.map((gateway) => gateway?.close()));
  }

  /** Deletes the stored manifests of servers a collection no longer has (a failure only leaves unused rows). */
  private async forgetManifests(collection: string, servers: string[]): Promise<void> {
    try {
      await Promise.all(servers.map((server) => this.options.store.deleteManifest(manifestOwner(collection), server)));
    } catch (error) {
      this.options.log(`toolsearch serve: could not delete the manifests of ${collection}: ${messageOf(error)}`);
    }
  }
}

function serverNames(config: Record<string, unknown>): string[] {
  const servers = config.mcpServers;
  return servers && typeof servers === "object" ? Object.keys(servers) : [];
}
