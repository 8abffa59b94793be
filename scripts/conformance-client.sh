#!/usr/bin/env bash
# The gateway as the client under test of the MCP conformance suite (@modelcontextprotocol/conformance):
#   npx conformance client --command "bash scripts/conformance-client.sh" --scenario auth/metadata-default
# The suite appends the server URL and names the scenario in MCP_CONFORMANCE_SCENARIO (credentials, when a scenario
# has them, in MCP_CONFORMANCE_CONTEXT). Everything goes through the product's own commands: a configuration file
# with one remote server, `toolsearch mcp login --no-browser` (the suite's authorization server consents without a
# person) and `toolsearch mcp call`. Run from the repository root with the project built (npm run build).
set -euo pipefail
url="${1:?usage: conformance-client.sh SERVER_URL}"
scenario="${MCP_CONFORMANCE_SCENARIO:-}"
root="$(cd "$(dirname "$0")/.." && pwd)"
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
export TOOLSEARCH_HOME="$home"
ts() { node "$root/dist/cli/main.js" "$@"; }

# One server, "upstream"; the oauth block only says what a user would write for such a server.
node -e '
  const [url, scenario] = process.argv.slice(1);
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
  const oauth = {};
  if (context.client_id) oauth.clientId = context.client_id;
  if (context.client_secret) oauth.clientSecret = context.client_secret;
  if (context.private_key_pem) oauth.privateKey = context.private_key_pem;
  if (context.signing_algorithm) oauth.signingAlgorithm = context.signing_algorithm;
  if (scenario.startsWith("auth/client-credentials")) oauth.grant = "client_credentials";
  // The suite checks for this client ID metadata document URL (a user would publish their own).
  if (scenario === "auth/basic-cimd") oauth.clientMetadataUrl = "https://conformance-test.local/client-metadata.json";
  const server = { url, ...(Object.keys(oauth).length ? { oauth } : {}) };
  process.stdout.write(JSON.stringify({ mcpServers: { upstream: server } }));
' "$url" "$scenario" > "$home/mcp.json"

case "$scenario" in
  initialize) ts mcp call upstream ;;
  tools_call) ts mcp call upstream add_numbers --args '{"a":2,"b":3}' ;;
  auth/*)
    ts mcp login upstream --no-browser
    # A call may want a login (a server that lets anyone initialize) or more scope (step-up): the failed call names
    # the login, which asks for what the call was refused for. A few rounds at most, as a person would.
    for round in 1 2 3; do
      if ts mcp call upstream test-tool; then exit 0; fi
      [ "$round" = 3 ] && exit 1
      ts mcp login upstream --no-browser
    done
    ;;
  *) ts mcp call upstream ;;
esac
