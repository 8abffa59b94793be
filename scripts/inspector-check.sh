#!/usr/bin/env bash
# A second, independent MCP client against the gateway: @modelcontextprotocol/inspector's CLI mode
# (package @modelcontextprotocol/inspector-cli, a dev dependency; no npx, no network). It lists the gateway's tools,
# searches upstream tools and calls one through call_tool, over stdio, with server-memory as the upstream.
# Usage: scripts/inspector-check.sh        (exit 0 when every check passes)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
memory="$root/node_modules/@modelcontextprotocol/server-memory/dist/index.js"
cat >"$work/upstreams.json" <<JSON
{"mcpServers": {"memory": {"command": "node", "args": ["$memory"], "env": {"MEMORY_FILE_PATH": "$work/memory.jsonl"}}}}
JSON
# The inspector takes servers in the same config shape as Claude Desktop.
cat >"$work/inspector.json" <<JSON
{"mcpServers": {"toolsearch": {"command": "node",
  "args": ["--import", "tsx", "$root/src/cli/main.ts", "mcp", "--config", "$work/upstreams.json"]}}}
JSON
# inspector-cli 1.0.3 finds its package.json via "../package.json" relative to the working directory: run it from a
# directory whose parent has one (scripts/ → the project root).
cd "$root/scripts"
inspector() { node "$root/node_modules/@modelcontextprotocol/inspector-cli/build/cli.js" --cli --config "$work/inspector.json" --server toolsearch "$@" 2>/dev/null; }

check() { # name, output, expected substring
  if grep -qF -- "$3" <<<"$2"; then echo "ok   $1"; else echo "FAIL $1: expected '$3' in:"; echo "$2" | head -20; exit 1; fi
}
out="$(inspector --method tools/list)"
check "tools/list shows search_tools" "$out" '"name": "search_tools"'
check "tools/list shows call_tool" "$out" '"name": "call_tool"'
out="$(inspector --method tools/call --tool-name search_tools --tool-arg query="create entities knowledge graph" --tool-arg limit=3)"
check "search_tools finds memory__create_entities" "$out" 'memory__create_entities'
out="$(inspector --method tools/call --tool-name call_tool --tool-arg name=memory__create_entities \
  --tool-arg 'arguments={"entities":[{"name":"Ada","entityType":"person","observations":["wrote the first program"]}]}')"
check "call_tool runs memory__create_entities" "$out" 'Ada'
out="$(inspector --method tools/call --tool-name call_tool --tool-arg name=memory__read_graph --tool-arg 'arguments={}')"
check "call_tool reads the graph back (persisted upstream)" "$out" 'wrote the first program'
out="$(inspector --method tools/call --tool-name call_tool --tool-arg name=memory__create_entities --tool-arg 'arguments={}')"
check "bad arguments name the field" "$out" 'missing required property \"entities\"'
echo "inspector CLI: all checks passed"
