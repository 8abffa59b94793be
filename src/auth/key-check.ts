/**
 * Checks at gateway start that every `private_key_jwt` key of a configuration can be read and used (SPEC §15): a
 * missing file or garbage in it is `config_invalid` naming the configuration, the server and the field, before any
 * upstream starts — not a server that later fails as "down". Never quotes a key.
 */
import { type Problem, ToolsearchError } from "../errors.js";
import { configRefused, type GatewayConfig, isStdioConfig } from "../mcp/config.js";
import { resolveServerConfig } from "../mcp/variables.js";
import type { Environment } from "../text/env-variables.js";
import { checkClientAssertion, usesClientAssertion } from "./client-assertion.js";

/** Throws `config_invalid` listing each server whose `oauth.privateKey` / `oauth.privateKeyFile` cannot sign. */
export async function checkClientKeys(config: GatewayConfig, where: string, environment: Environment = process.env): Promise<void> {
  const problems: Problem[] = [];
  await Promise.all(Object.entries(config.mcpServers).map(async ([name, written]) => {
    if (isStdioConfig(written) || !written.oauth || !usesClientAssertion(written.oauth)) return;
    const { config: server } = resolveServerConfig(written, environment);
    const oauth = !isStdioConfig(server) ? server.oauth : undefined;
    try {
      await checkClientAssertion({ ...oauth, clientId: oauth?.clientId ?? name });
    } catch (error) {
      if (!(error instanceof ToolsearchError)) throw error;
      problems.push({ file: where, name, rule: "the oauth key must be readable and fit its algorithm", message: `server ${JSON.stringify(name)}: ${error.message}` });
    }
  }));
  if (problems.length) throw configRefused(where, problems);
}
