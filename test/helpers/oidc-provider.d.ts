/** The few parts of `oidc-provider` (no bundled types) that the OAuth tests use. */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface ResourceServerInfo {
    scope: string;
    audience?: string;
    accessTokenFormat?: "jwt" | "opaque";
    accessTokenTTL?: number;
    jwt?: { sign?: { alg: string } };
  }

  interface Grant {
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  interface InteractionDetails {
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId: string };
    grantId?: string;
  }

  export default class Provider {
    Grant: { new (init: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    constructor(issuer: string, configuration: {
      clients?: Array<Record<string, unknown>>;
      jwks?: { keys: Array<Record<string, unknown>> };
      scopes?: string[];
      features?: Record<string, unknown> & {
        resourceIndicators?: {
          enabled: boolean;
          defaultResource?: (ctx: unknown, client: unknown, oneOf?: string[]) => string | undefined;
          getResourceServerInfo?: (ctx: unknown, resourceIndicator: string, client: unknown) => ResourceServerInfo;
          useGrantedResource?: (ctx: unknown, model: unknown) => boolean;
        };
      };
      [key: string]: unknown;
    });
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
