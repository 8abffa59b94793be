/**
 * `/.well-known/oauth-protected-resource` (RFC 9728), served when the service accepts OAuth access tokens: it names
 * the issuer and the scopes, so that an MCP client that met a 401 finds where to get a token on its own. The
 * path-suffixed form (`…/mcp/{c}`) that clients try first answers the same document.
 */
import type { FastifyInstance } from "fastify";
import { type OAuthResourceOptions, OAUTH_SCOPES } from "../../auth/oauth-resource.js";
import { resourceUrl } from "../auth.js";

const metadata = {
  type: "object",
  required: ["resource", "authorization_servers"],
  properties: {
    resource: { type: "string" },
    authorization_servers: { type: "array", items: { type: "string" } },
    scopes_supported: { type: "array", items: { type: "string" } },
    bearer_methods_supported: { type: "array", items: { type: "string" } },
    resource_name: { type: "string" },
  },
} as const;

export async function oauthMetadataRoutes(app: FastifyInstance, { oauth }: { oauth: OAuthResourceOptions }): Promise<void> {
  const schema = { summary: "OAuth protected resource metadata (RFC 9728): the issuer whose tokens this service accepts", response: { 200: metadata } };
  const handler = async (request: Parameters<typeof resourceUrl>[0]) => ({
    resource: resourceUrl(request, oauth),
    authorization_servers: [oauth.issuer],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "toolsearch",
  });
  app.get("/.well-known/oauth-protected-resource", { schema }, handler);
  app.get("/.well-known/oauth-protected-resource/*", { schema: { ...schema, hide: true } }, handler);
}
