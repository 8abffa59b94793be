/**
 * The resources, resource templates and prompts of every upstream as the gateway shows them (SPEC §14), and the way
 * back from a name or URI the client sends to the server that owns it. Prompt names are namespaced like tools
 * (`server__prompt`). A resource URI (or template) stays as the upstream wrote it unless another upstream lists the
 * same one; then both get the stable form `toolsearch://upstream/<server>/<uri>`, which routes back to its server.
 * The `resources` and `prompts` globs of a server block (tool-filter.ts) hide what they exclude, from lists and reads.
 *
 * It is rebuilt whole from the servers' offers whenever one changes: it holds no state of its own.
 *
 * @example
 * ```ts
 * const offers = new OfferCatalog(config.mcpServers, new Map([["everything", upstream.offer]]));
 * offers.routeResource("demo://resource/static/document/architecture.md"); // { server: "everything", uri: … }
 * ```
 */
import type { Prompt, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import type { ServerControls } from "./config.js";
import { namespacedName } from "./names.js";
import { UriTemplate } from "./sdk.js";
import { toolFilter } from "./tool-filter.js";
import type { UpstreamOffer } from "./upstream.js";

/** Where a prompt, resource or template the client named really lives. */
export interface OfferRoute {
  server: string;
  /** The upstream's own prompt name, URI or URI template. */
  target: string;
}

/** The scheme and host of the prefixed form of a clashing URI. */
export const UPSTREAM_URI_PREFIX = "toolsearch://upstream/";

/** The stable prefixed form of an upstream URI (or URI template) that another upstream also uses. */
export function prefixedUri(server: string, uri: string): string {
  return `${UPSTREAM_URI_PREFIX}${encodeURIComponent(server)}/${uri}`;
}

export class OfferCatalog {
  readonly resources: Resource[] = [];
  readonly resourceTemplates: ResourceTemplate[] = [];
  readonly prompts: Prompt[] = [];
  private readonly resourceRoutes = new Map<string, OfferRoute>();
  private readonly templateRoutes = new Map<string, OfferRoute & { matcher: UriTemplate }>();
  private readonly promptRoutes = new Map<string, OfferRoute>();
  /** Per server, its upstream URIs (and templates) that clash, so are shown prefixed. */
  private readonly clashing = new Set<string>();
  private readonly servers: Record<string, ServerControls>;

  /** `servers`: the configuration's server blocks; `offers`: each server's offer, in configuration order. */
  constructor(servers: Record<string, ServerControls>, offers: Map<string, UpstreamOffer>) {
    this.servers = servers;
    const kept = [...offers].map(([server, offer]) => [server, this.visible(server, offer)] as const);
    const owners = new Map<string, number>();
    for (const [, offer] of kept) {
      const uris = new Set([...offer.resources.map((r) => r.uri), ...offer.resourceTemplates.map((t) => t.uriTemplate)]);
      for (const uri of uris) owners.set(uri, (owners.get(uri) ?? 0) + 1);
    }
    for (const [uri, count] of owners) if (count > 1) this.clashing.add(uri);
    for (const [server, offer] of kept) this.add(server, offer);
  }

  /** How the client sees an upstream URI of `server` (its own form, or the prefixed one on a clash). */
  exposedUri(server: string, uri: string): string {
    return this.clashing.has(uri) ? prefixedUri(server, uri) : uri;
  }

  /** The server and upstream URI behind a URI the client sent, or undefined when no upstream offers it. */
  routeResource(uri: string): OfferRoute | undefined {
    const listed = this.resourceRoutes.get(uri);
    if (listed) return listed;
    const prefixed = this.unprefix(uri);
    if (prefixed) return this.allowsUri(prefixed.server, prefixed.target) ? prefixed : undefined;
    for (const route of this.templateRoutes.values()) {
      if (!this.clashing.has(route.target) && route.matcher.match(uri) && this.allowsUri(route.server, uri)) return { server: route.server, target: uri };
    }
    return undefined;
  }

  /** The server and upstream URI template behind a template the client named (for completion). */
  routeTemplate(uriTemplate: string): OfferRoute | undefined {
    const route = this.templateRoutes.get(uriTemplate);
    return route && { server: route.server, target: route.target };
  }

  /** The server and upstream prompt name behind a namespaced prompt name. */
  routePrompt(name: string): OfferRoute | undefined {
    return this.promptRoutes.get(name);
  }

  private add(server: string, offer: UpstreamOffer): void {
    for (const resource of offer.resources) {
      const uri = this.exposedUri(server, resource.uri);
      this.resources.push({ ...resource, uri });
      this.resourceRoutes.set(uri, { server, target: resource.uri });
    }
    for (const template of offer.resourceTemplates) {
      const uriTemplate = this.exposedUri(server, template.uriTemplate);
      this.resourceTemplates.push({ ...template, uriTemplate });
      this.templateRoutes.set(uriTemplate, { server, target: template.uriTemplate, matcher: new UriTemplate(template.uriTemplate) });
    }
    for (const prompt of offer.prompts) {
      const name = namespacedName(server, prompt.name);
      // The first server to claim a name keeps it, as with tools.
      if (this.promptRoutes.has(name)) continue;
      this.prompts.push({ ...prompt, name });
      this.promptRoutes.set(name, { server, target: prompt.name });
    }
  }

  /** What the server block's `resources` and `prompts` globs let through. */
  private visible(server: string, offer: UpstreamOffer): UpstreamOffer {
    const keepPrompt = toolFilter(this.servers[server]?.prompts);
    return {
      resources: offer.resources.filter((r) => this.allowsUri(server, r.uri)),
      resourceTemplates: offer.resourceTemplates.filter((t) => this.allowsUri(server, t.uriTemplate)),
      prompts: offer.prompts.filter((p) => keepPrompt(p.name)),
    };
  }

  private allowsUri(server: string, uri: string): boolean {
    return server in this.servers && toolFilter(this.servers[server]?.resources)(uri);
  }

  private unprefix(uri: string): OfferRoute | undefined {
    if (!uri.startsWith(UPSTREAM_URI_PREFIX)) return undefined;
    const rest = uri.slice(UPSTREAM_URI_PREFIX.length);
    const slash = rest.indexOf("/");
    if (slash < 0) return undefined;
    let server: string;
    try {
      server = decodeURIComponent(rest.slice(0, slash));
    } catch {
      return undefined;
    }
    return { server, target: rest.slice(slash + 1) };
  }
}
