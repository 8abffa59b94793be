#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.12, a dev dependency; no network) against
# toolsearch's MCP servers, each with a baseline of the scenarios that cannot pass there and why (docs/mcp.md):
#   gateway  `toolsearch mcp --http` with only a static catalog              conformance/gateway.yml
#   through  `toolsearch mcp --http` in front of the conformance-style upstream (test/fixtures/mcp/conformance-server.mjs,
#            every tool alwaysLoad), so the scenarios' own tools, resources and prompts go through the gateway
#                                                                           conformance/through.yml
#   service  `toolsearch serve`'s /mcp/{c} for an mcp collection of that upstream                conformance/service.yml
# Usage: scripts/conformance-server.sh [gateway|through|service]...   (default: all three; exit 0 when each run
# matches its baseline: no unexpected failure, no stale entry)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
work="$(mktemp -d)"
# `start` runs inside $(...), a subshell, so the servers' pids go to a file the exit trap can read.
cleanup() {
  if [ -f "$work/pids" ]; then
    while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$work/pids"
    # SIGTERM makes each server stop its upstreams; give them a moment before the folder goes.
    for _ in $(seq 1 50); do
      alive=0; while read -r pid; do if kill -0 "$pid" 2>/dev/null; then alive=1; fi; done <"$work/pids"
      [ "$alive" -eq 0 ] && break; sleep 0.1
    done
  fi
  rm -rf "$work"
}
trap cleanup EXIT
suite="$root/node_modules/@modelcontextprotocol/conformance/dist/index.js"
toolsearch=(node --import tsx "$root/src/cli/main.ts")

cat >"$work/conformance-upstream.json" <<JSON
{"mcpServers": {"conf": {"command": "node", "args": ["$root/test/fixtures/mcp/conformance-server.mjs"],
  "alwaysLoad": ["test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
                 "test_multiple_content_types", "test_tool_with_logging", "test_error_handling"]}}}
JSON

# Starts a server in the background and prints the first URL it writes (stdout or stderr) after "listening on".
start() {
  local log="$work/$1.log"; shift
  "$@" >"$log" 2>&1 &
  local pid="$!"
  echo "$pid" >>"$work/pids"
  for _ in $(seq 1 600); do
    local url; url="$(grep -o 'listening on [^ ]*' "$log" | head -1 | cut -d' ' -f3 || true)"
    if [ -n "$url" ]; then echo "$url"; return; fi
    if ! kill -0 "$pid" 2>/dev/null; then echo "server exited:" >&2; cat "$log" >&2; exit 1; fi
    sleep 0.1
  done
  echo "server did not start:" >&2; cat "$log" >&2; exit 1
}

run() { # name, url
  echo "== conformance: $1 ($2)"
  node "$suite" server --url "$2" --expected-failures "$root/conformance/$1.yml" -o "$work/results-$1"
}

targets=("$@"); [ ${#targets[@]} -eq 0 ] && targets=(gateway through service)
for target in "${targets[@]}"; do
  case "$target" in
    gateway) run gateway "$(start gateway "${toolsearch[@]}" mcp --catalog test/fixtures/mcp/catalog.json --http 0)" ;;
    through) run through "$(start through "${toolsearch[@]}" mcp --config "$work/conformance-upstream.json" --store "$work/through.sqlite" --http 0)" ;;
    service)
      url="$(start service "${toolsearch[@]}" serve --no-auth --port 0 --store "$work/service.sqlite" --mcp-config "$work/conformance-upstream.json")"
      run service "${url%/}/mcp/conformance-upstream" ;;
    *) echo "unknown target $target (gateway, through or service)" >&2; exit 2 ;;
  esac
done
