/**
 * The prompts surface: `prompts/list` and `prompts/get` over the upstreams' prompts, named `server__prompt` like
 * tools (offers.ts). Listing starts no server; getting a prompt starts the one that owns it, and its answer is
 * screened like a tool result (screening.ts). A change of the list sends every session `list_changed`.
 */
import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import type { OfferCatalog } from "../offers.js";
import type { UpstreamRegistry } from "../registry.js";
import { GetPromptRequestSchema, ListPromptsRequestSchema } from "../sdk.js";
import type { GatewaySession, Sessions } from "../sessions.js";
import { screenPrompt } from "../../trust/screen.js";
import { type ScreenSettings, screenModeOf, screenRelayed } from "./screening.js";
import type { Surface } from "./surface.js";
import { invalidParams, relay } from "./upstream-errors.js";

export class PromptsSurface implements Surface {
  readonly capabilities = { prompts: { listChanged: true } };
  private readonly registry: UpstreamRegistry;
  private readonly sessions: Sessions;
  private readonly screening: ScreenSettings;

  constructor(registry: UpstreamRegistry, sessions: Sessions, screening: ScreenSettings = {}) {
    this.registry = registry;
    this.sessions = sessions;
    this.screening = screening;
  }

  register(session: GatewaySession): void {
    // Like the first search, the first list waits for the servers started at launch (they have no manifest yet).
    const started = () => this.registry.whenStarted();
    session.server.setRequestHandler(ListPromptsRequestSchema, async () => started().then(() => ({ prompts: this.registry.offers.prompts })));
    session.server.setRequestHandler(GetPromptRequestSchema, async (request) => started().then(() => this.get(request.params.name, request.params.arguments)));
  }

  async get(name: string, args?: Record<string, string>): Promise<GetPromptResult> {
    const route = this.registry.offers.routePrompt(name);
    const upstream = route && this.registry.upstream(route.server);
    if (!route || !upstream) {
      const known = this.registry.offers.prompts.map((p) => p.name);
      throw invalidParams(`Unknown prompt ${JSON.stringify(name)}. ${known.length ? `Prompts here: ${known.join(", ")}.` : "No prompts are offered here."}`);
    }
    const result = (await relay(() => upstream.request("prompts/get", { name: route.target, ...(args ? { arguments: args } : {}) }))) as GetPromptResult;
    return screenRelayed(result, screenModeOf(this.screening, route.server), screenPrompt, `the prompt ${name}`);
  }

  /** Sends `list_changed` to every session when the prompts differ from `before`. */
  offersChanged(before: OfferCatalog): void {
    if (JSON.stringify(before.prompts) === JSON.stringify(this.registry.offers.prompts)) return;
    for (const session of this.sessions) void session.server.sendPromptListChanged().catch(() => undefined);
  }
}
