/**
 * The completion surface: `completion/complete` for prompt arguments and resource-template variables, passed to the
 * server that owns the prompt or template under its own name. A reference the gateway does not know (or one whose
 * server offers no completion) completes to nothing, as MCP allows, rather than failing the client's input box.
 */
import type { CompleteRequest, CompleteResult } from "@modelcontextprotocol/sdk/types.js";
import type { UpstreamRegistry } from "../registry.js";
import { CompleteRequestSchema, ErrorCode, McpError } from "../sdk.js";
import type { GatewaySession } from "../sessions.js";
import type { Surface } from "./surface.js";
import { relay } from "./upstream-errors.js";

const NOTHING: CompleteResult = { completion: { values: [], hasMore: false } };

export class CompletionSurface implements Surface {
  readonly capabilities = { completions: {} };
  private readonly registry: UpstreamRegistry;

  constructor(registry: UpstreamRegistry) {
    this.registry = registry;
  }

  register(session: GatewaySession): void {
    session.server.setRequestHandler(CompleteRequestSchema, async (request) => this.registry.whenStarted().then(() => this.complete(request.params)));
  }

  async complete(params: CompleteRequest["params"]): Promise<CompleteResult> {
    const { ref } = params;
    const offers = this.registry.offers;
    const route = ref.type === "ref/prompt" ? offers.routePrompt(ref.name) : offers.routeTemplate(ref.uri);
    const upstream = route && this.registry.upstream(route.server);
    if (!route || !upstream) return NOTHING;
    const upstreamRef = ref.type === "ref/prompt" ? { ...ref, name: route.target } : { ...ref, uri: route.target };
    try {
      return (await relay(() => upstream.request("completion/complete", { ...params, ref: upstreamRef }))) as CompleteResult;
    } catch (error) {
      // A server that offers prompts but not completion has nothing to suggest.
      if (error instanceof McpError && error.code === ErrorCode.MethodNotFound) return NOTHING;
      throw error;
    }
  }
}
