#!/usr/bin/env bash
# CI: the MCP conformance suite's client scenarios with the gateway as the client under test
# (scripts/conformance-client.sh). Scenarios listed in scripts/conformance-baseline.yml are expected to fail, each for
# the reason given there; one that fails outside it, or passes inside it, fails this script. Needs `npm run build`.
# One scenario at a time: each starts a few short toolsearch processes, and parallel runs only contend for the CPU.
set -uo pipefail
cd "$(dirname "$0")/.."
scenarios=(initialize tools_call
  auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3 auth/basic-cimd
  auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined
  auth/scope-step-up auth/scope-retry-limit
  auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
  auth/resource-mismatch auth/pre-registration auth/client-credentials-basic auth/client-credentials-jwt
  auth/2025-03-26-oauth-metadata-backcompat auth/2025-03-26-oauth-endpoint-fallback)
[ $# -gt 0 ] && scenarios=("$@")
failed=()
for scenario in "${scenarios[@]}"; do
  if node node_modules/@modelcontextprotocol/conformance/dist/index.js client \
      --command "bash scripts/conformance-client.sh" --scenario "$scenario" \
      --expected-failures scripts/conformance-baseline.yml --timeout "${CONFORMANCE_TIMEOUT_MS:-60000}" >"${TMPDIR:-/tmp}/conformance-$$.log" 2>&1; then
    echo "ok   $scenario"
  else
    echo "FAIL $scenario"; tail -n 25 "${TMPDIR:-/tmp}/conformance-$$.log"; failed+=("$scenario")
  fi
done
rm -f "${TMPDIR:-/tmp}/conformance-$$.log"
[ ${#failed[@]} -eq 0 ] || { echo "conformance: unexpected results in ${failed[*]}"; exit 1; }
echo "conformance: ${#scenarios[@]} scenarios as expected"
