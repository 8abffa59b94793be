#!/usr/bin/env bash
# Packaging check: `npm pack` the package (which builds it first), install the tarball into a fresh temporary project
# as a user would, and check that a bm25/regex/USE-lite user has everything, in at most 200 MB:
#   - the learned ranker's model (dist/ranking/model.json) is in the package;
#   - the CLI searches the bundled example catalog with bm25, regex and hybrid (USE-lite, SQLite embedding cache);
#   - each entry point imports (toolsearch, toolsearch/anthropic, toolsearch/openai, toolsearch/server; ai-sdk and openai-agents need their optional SDKs) without the optional peers;
#   - the optional peers (@huggingface/transformers, @anthropic-ai/sdk, openai) are not installed, and asking for the
#     ONNX provider without @huggingface/transformers fails with embedding_failed naming the package;
#   - the installed size (node_modules of the temporary project) is printed; above 200 MB the check fails;
#   - without re2's native module (install script not allowed), bm25 works and regex fails with dependency_missing.
# npm ≥ 11.19 blocks dependencies' install scripts unless allowed: the two native modules (re2, better-sqlite3) are
# allowed in the project's "allowScripts", as the README tells users to; node-gyp may build them from source.
# Usage: scripts/pack-check.sh   (exit 0 when every check passes; the registry must be reachable)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
limit_mb=200
fail() { echo "pack-check: FAIL: $*" >&2; exit 1; }

cd "$root"
npm run -s build
tarball="$(npm pack --silent --pack-destination "$work" | tail -n 1)"
echo "pack-check: packed $tarball ($(du -k "$work/$tarball" | cut -f1) kB)"

mkdir "$work/app"
cd "$work/app"
cat >package.json <<'JSON'
{"name": "pack-check-app", "version": "1.0.0", "private": true, "type": "module",
 "allowScripts": {"re2": true, "better-sqlite3": true}}
JSON
ONNXRUNTIME_NODE_INSTALL=skip npm install --no-fund --no-audit --loglevel=error "$work/$tarball" >/dev/null

for peer in @huggingface/transformers onnxruntime-node @anthropic-ai/sdk openai; do
  [ ! -e "node_modules/$peer" ] || fail "$peer was installed, but it is an optional peer"
done

# The learned ranker reads its model beside dist/ranking/model.js at run time (copied by scripts/build-assets.ts).
[ -f node_modules/toolsearch/dist/ranking/model.json ] || fail "dist/ranking/model.json (the learned ranker's model) is not in the package"

catalog=node_modules/toolsearch/examples/catalog.json
bin=node_modules/.bin/toolsearch
top() { node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).results[0]?.name ?? "(none)"))'; }
bm25="$("$bin" search "weather in Paris" --catalog "$catalog" --json | top)"
regex="$("$bin" search "weather|forecast" --engine regex --catalog "$catalog" --json | top)"
hybrid="$("$bin" search "will it rain tomorrow" --engine hybrid --catalog "$catalog" --cache "$work/embeddings.sqlite" --json | top)"
echo "pack-check: CLI top results: bm25 $bm25, regex $regex, hybrid $hybrid"
[ "$bm25" != "(none)" ] && [ "$regex" != "(none)" ] && [ "$hybrid" != "(none)" ] || fail "a search found nothing"
[ -s "$work/embeddings.sqlite" ] || fail "the SQLite embedding cache was not written"

node --input-type=module -e '
  const main = await import("toolsearch");
  const anthropic = await import("toolsearch/anthropic");
  const openai = await import("toolsearch/openai");
  const server = await import("toolsearch/server");
  const index = await main.ToolIndex.fromFile(process.argv[1]);
  const hits = await index.search("weather", { limit: 1 });
  if (typeof anthropic.runAgent !== "function" || typeof openai.runOpenAiAgent !== "function" || Object.keys(server).length === 0 || hits.length !== 1) process.exit(1);
  console.log(`pack-check: imported toolsearch (${Object.keys(main).length} exports), toolsearch/anthropic, toolsearch/openai, toolsearch/server`);
' "$catalog" || fail "an entry point did not import"

model="$work/model"
mkdir -p "$model/onnx" && touch "$model/tokenizer.json" "$model/onnx/model.onnx"
set +e
onnx_error="$("$bin" search x --engine semantic --embedder "onnx:$model" --no-cache --catalog "$catalog" --json 2>&1 >/dev/null)"
set -e
case "$onnx_error" in
  *'"code":"embedding_failed"'*'@huggingface/transformers'*) echo "pack-check: the onnx provider without its peer: embedding_failed naming @huggingface/transformers" ;;
  *) fail "unexpected error for the onnx provider without its peer: $onnx_error" ;;
esac

# Where no prebuilt binary can be downloaded (as here, offline), node-gyp compiles re2 and better-sqlite3 and leaves
# its object files (build/Release/obj*) beside the module: ~85 MB never loaded, and absent with prebuilt binaries. The
# limit applies to the install without them; both figures are printed.
disk_mb="$(du -sm node_modules | cut -f1)"
objects_mb="$(find node_modules -type d -path '*/build/Release/obj*' -prune -print0 | du -smc --files0-from=- 2>/dev/null | tail -n 1 | cut -f1)"
size_mb=$((disk_mb - ${objects_mb:-0}))
echo "pack-check: installed size $size_mb MB (limit $limit_mb MB); on disk $disk_mb MB with $objects_mb MB of node-gyp object files; largest packages:"
# sed reads to the end (head would close the pipe early, and sort's SIGPIPE fails the script under pipefail).
{ du -sm node_modules/* node_modules/@*/* 2>/dev/null || true; } | sort -rn | sed -n '1,8s/^/  /p'
[ "$size_mb" -le "$limit_mb" ] || fail "installed size $size_mb MB is above $limit_mb MB"

# A project that did not allow re2's install script has no built module: bm25 still works, regex says how to fix it.
rm -f node_modules/re2/build/Release/re2.node
[ "$("$bin" search "weather in Paris" --catalog "$catalog" --json | top)" = "$bm25" ] || fail "bm25 without re2's native module"
set +e
re2_error="$("$bin" search "weather|forecast" --engine regex --catalog "$catalog" --json 2>&1 >/dev/null)"
set -e
case "$re2_error" in
  *'"code":"dependency_missing"'*'allowScripts'*) echo "pack-check: without re2's native module: bm25 works, regex gives dependency_missing with the fix" ;;
  *) fail "unexpected error for regex without re2's native module: $re2_error" ;;
esac
echo "pack-check: ok"
