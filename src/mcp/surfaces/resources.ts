/**
 * The resources surface: `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe` and
 * `unsubscribe` of every session, over the upstreams' resources (offers.ts: URIs kept unless two servers clash) and,
 * with a knowledge base, its documents (doc-resources.ts). An upstream's contents are screened like a tool result
 * (screening.ts). Lists come from what the registry knows, manifests
 * included, so listing starts no server; a read or a subscription starts the one that owns the URI. An upstream's
 * `resources/updated` reaches the sessions subscribed to that URI, and a change of the lists sends them all
 * `list_changed`.
 */
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { DocumentIndex } from "../../indexes/document-index.js";
import { docContents, docResource, docResourceTemplate, parseDocResourceUri } from "../doc-resources.js";
import type { OfferCatalog } from "../offers.js";
import type { UpstreamRegistry } from "../registry.js";
import {
  ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, McpError, ReadResourceRequestSchema, SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "../sdk.js";
import type { GatewaySession, Sessions } from "../sessions.js";
import { screenResourceContents } from "../../trust/screen.js";
import { type ScreenSettings, screenModeOf, screenRelayed } from "./screening.js";
import type { Surface } from "./surface.js";
import { RESOURCE_NOT_FOUND, relay } from "./upstream-errors.js";

/** Options of the resources surface (with the screening modes of upstream contents). */
export interface ResourcesSurfaceOptions extends ScreenSettings {
  /** A knowledge base whose documents are resources too. */
  docs?: DocumentIndex;
  /** The collection name in the documents' URIs (`toolsearch://docs/{collection}/{id}`). */
  docsCollection: string;
}

export class ResourcesSurface implements Surface {
  readonly capabilities = { resources: { subscribe: true, listChanged: true } };
  private readonly registry: UpstreamRegistry;
  private readonly sessions: Sessions;
  private readonly options: ResourcesSurfaceOptions;
  /** Which sessions follow each upstream resource (`server\0uri`), so the upstream is told once. */
  private readonly followers = new Map<string, Set<GatewaySession>>();

  constructor(registry: UpstreamRegistry, sessions: Sessions, options: ResourcesSurfaceOptions) {
    this.registry = registry;
    this.sessions = sessions;
    this.options = options;
    sessions.onClose((session) => {
      for (const uri of session.subscriptions) void this.unfollow(session, uri).catch(() => undefined);
    });
  }

  register(session: GatewaySession): void {
    const { server } = session;
    // Like the first search, the first list waits for the servers started at launch (they have no manifest yet).
    const started = () => this.registry.whenStarted();
    server.setRequestHandler(ListResourcesRequestSchema, async () => started().then(() => ({ resources: this.listResources() })));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => started().then(() => ({ resourceTemplates: this.listTemplates() })));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => started().then(() => this.read(request.params.uri)));
    server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      await started();
      await this.follow(session, request.params.uri);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      await this.unfollow(session, request.params.uri);
      return {};
    });
  }

  /** Re-subscribes, in this gateway's upstreams, to what a session handed over from another gateway followed. */
  async adopt(session: GatewaySession): Promise<void> {
    const uris = [...session.subscriptions];
    session.subscriptions.clear();
    for (const uri of uris) await this.follow(session, uri).catch(() => undefined);
  }

  listResources() {
    const docs = this.options.docs;
    const documents = docs ? docs.ids().map((id) => docResource(this.options.docsCollection, docs.get(id)!)) : [];
    return [...this.registry.offers.resources, ...documents];
  }

  listTemplates() {
    const docs = this.options.docs ? [docResourceTemplate(this.options.docsCollection)] : [];
    return [...this.registry.offers.resourceTemplates, ...docs];
  }

  async read(uri: string): Promise<ReadResourceResult> {
    const document = this.document(uri);
    if (document) return { contents: [docContents(this.options.docsCollection, document)] };
    const route = this.routeOrFail(uri);
    const upstream = this.registry.upstream(route.server)!;
    const result = (await relay(() => upstream.request("resources/read", { uri: route.target }))) as ReadResourceResult;
    // The contents name the URI as the client knows it.
    const offers = this.registry.offers;
    const exposed = { ...result, contents: result.contents.map((c) => ({ ...c, uri: c.uri === route.target ? uri : offers.exposedUri(route.server, c.uri) })) };
    return screenRelayed(exposed, screenModeOf(this.options, route.server), screenResourceContents, `the resource ${uri}`);
  }

  /** Sends `list_changed` to every session when the resources or templates differ from `before`. */
  offersChanged(before: OfferCatalog): void {
    const after = this.registry.offers;
    const same = JSON.stringify([before.resources, before.resourceTemplates]) === JSON.stringify([after.resources, after.resourceTemplates]);
    if (same) return;
    for (const session of this.sessions) void session.server.sendResourceListChanged().catch(() => undefined);
  }

  /** Passes an upstream's `resources/updated` to the sessions that follow that resource. */
  resourceUpdated(server: string, uri: string): void {
    const exposed = this.registry.offers.exposedUri(server, uri);
    for (const session of this.followers.get(followKey(server, uri)) ?? []) {
      if (session.subscriptions.has(exposed)) void session.server.sendResourceUpdated({ uri: exposed }).catch(() => undefined);
    }
  }

  private async follow(session: GatewaySession, uri: string): Promise<void> {
    // Documents change only when their collection does; there is nothing to forward, but the request is valid.
    if (this.document(uri)) return void session.subscriptions.add(uri);
    const route = this.routeOrFail(uri);
    const key = followKey(route.server, route.target);
    const followers = this.followers.get(key) ?? new Set();
    const first = followers.size === 0;
    followers.add(session);
    this.followers.set(key, followers);
    session.subscriptions.add(uri);
    if (first) await relay(() => this.registry.upstream(route.server)!.subscribe(route.target));
  }

  private async unfollow(session: GatewaySession, uri: string): Promise<void> {
    session.subscriptions.delete(uri);
    const route = this.registry.offers.routeResource(uri);
    if (!route) return;
    const key = followKey(route.server, route.target);
    const followers = this.followers.get(key);
    if (!followers?.delete(session) || followers.size > 0) return;
    this.followers.delete(key);
    await this.registry.upstream(route.server)?.unsubscribe(route.target);
  }

  private document(uri: string) {
    const parsed = parseDocResourceUri(uri);
    if (!parsed || !this.options.docs || parsed.collection !== this.options.docsCollection) return undefined;
    const document = this.options.docs.get(parsed.id);
    if (!document) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: no document ${JSON.stringify(parsed.id)} in ${parsed.collection}. Use search_docs to find document ids.`, { uri });
    return document;
  }

  private routeOrFail(uri: string) {
    const route = this.registry.offers.routeResource(uri);
    if (!route || !this.registry.upstream(route.server)) {
      throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${JSON.stringify(uri)} is not offered here. List resources and templates with resources/list and resources/templates/list.`, { uri });
    }
    return route;
  }
}

function followKey(server: string, uri: string): string {
  return `${server}\u0000${uri}`;
}
