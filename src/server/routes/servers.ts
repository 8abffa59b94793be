/**
 * `GET /v1/collections/{c}/servers`: an `mcp` collection's servers and, for each, whether it needs an OAuth login, is
 * logged in, or holds an expired token (SPEC §15), read from the sealed store. Admin scope, like the configuration it
 * describes. Never a token: only a state, whether a refresh token is kept, and when the access token expires.
 */
import type { FastifyInstance } from "fastify";
import { loginStatus } from "../../auth/login-status.js";
import { loginCommand } from "../../auth/upstream-oauth.js";
import { ToolsearchError } from "../../errors.js";
import { isStdioConfig, parseGatewayConfig } from "../../mcp/config.js";
import type { Store } from "../../store/types.js";
import { type Collections, manifestOwner } from "../collections.js";
import { bearer, collectionParams, withErrors } from "../schemas.js";

const serverAnswer = {
  type: "object",
  required: ["name", "transport", "login"],
  properties: {
    name: { type: "string" },
    transport: { type: "string", enum: ["stdio", "http"] },
    login: { type: "string", enum: ["none", "machine", "needs_login", "logged_in", "expired"], description: "OAuth login state (SPEC §15)" },
    refreshable: { type: "boolean", description: "A refresh token is kept: the next call renews an expired access token" },
    expiresAt: { type: "string", description: "When the access token expires(d)" },
    command: { type: "string", description: "The command that logs this server in (when a login is or may be needed)" },
  },
} as const;

/** Options of the servers route. */
export interface ServersRouteOptions {
  collections: Collections;
  /** Where the sealed tokens are (the service's store). */
  store: Store;
}

export async function serversRoutes(app: FastifyInstance, { collections, store }: ServersRouteOptions): Promise<void> {
  app.get<{ Params: { c: string } }>("/v1/collections/:c/servers", {
    config: { scope: "admin" },
    schema: {
      summary: "An mcp collection's servers and their OAuth login state",
      security: bearer,
      params: collectionParams,
      response: withErrors({ 200: { type: "object", required: ["collection", "servers"], properties: { collection: { type: "string" }, servers: { type: "array", items: serverAnswer } } } }),
    },
  }, async (request) => {
    const name = request.params.c;
    const collection = await collections.resolve(name);
    if (collection.kind !== "mcp") {
      throw new ToolsearchError("conflict", `Collection ${JSON.stringify(name)} holds ${collection.kind}: only mcp collections have servers.`, { details: { kind: collection.kind } });
    }
    const config = parseGatewayConfig(collection.config, `collection ${name}`);
    const servers = await Promise.all(Object.entries(config.mcpServers).map(async ([server, settings]) => {
      const status = await loginStatus(store, manifestOwner(name), server, settings);
      const loginable = status.state === "needs_login" || (status.state === "expired" && !status.refreshable);
      return {
        name: server,
        transport: isStdioConfig(settings) ? "stdio" : "http",
        login: status.state,
        ...(status.refreshable !== undefined ? { refreshable: status.refreshable } : {}),
        ...(status.expiresAt ? { expiresAt: status.expiresAt } : {}),
        ...(loginable ? { command: loginCommand(server, `--collection ${name} --store <the service's store>`) } : {}),
      };
    }));
    return { collection: name, servers };
  });
}
