#!/usr/bin/env bash
# Replays a generated recording of at least 200 MB under both official ACP
# SDKs (clients/acp: TypeScript, clients/acpgo: Go) and prints what the
# issue asks to measure: how long initialize took, evtool's peak RSS, and
# the longest message (line) evtool wrote. Not part of make test: about a
# few minutes per SDK on 2 cores (notifications are paced at 5000/s). Usage: clients/measure.sh [MB] [DIALECT]
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${1:-210}
DIALECT=${2:-basis}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/evtool" ./cmd/evtool
go build -o "$tmp/acpgo" ./clients/acpgo
go run ./bench/gen -dialect "$DIALECT" -mb "$MB" > "$tmp/rec.jsonl"
size=$(stat -c %s "$tmp/rec.jsonl")
# The user turns of the recording, from the source: a mermaid run is one.
case "$DIALECT" in
  mermaid) turns=1 ;;
  basis) turns=$(grep -c '"type":"user_message"' "$tmp/rec.jsonl") ;;
  *) echo "measure.sh: no turn rule for $DIALECT" >&2; exit 2 ;;
esac
# evtool under /usr/bin/time, which reports its peak RSS.
cat > "$tmp/evtool-timed" <<EOS
#!/bin/sh
exec /usr/bin/time -f 'peak_rss_kib=%M' -o "$tmp/rss.\$\$" "$tmp/evtool" "\$@"
EOS
chmod +x "$tmp/evtool-timed"
echo "recording: $DIALECT, $size bytes, $turns user turns"
for client in go ts; do
  rm -f "$tmp"/rss.*
  start=$(date +%s.%N)
  if [ $client = go ]; then
    out=$(EVTOOL_CLIENT_SUMMARY=1 "$tmp/acpgo" "$tmp/evtool-timed" "$tmp/rec.jsonl" prompt "$turns")
  else
    out=$(EVTOOL_CLIENT_SUMMARY=1 node clients/acp/replay-client.mjs "$tmp/evtool-timed" "$tmp/rec.jsonl" prompt "$turns")
  fi
  end=$(date +%s.%N)
  sleep 0.2
  rss=$(cat "$tmp"/rss.* | sed -n 's/^peak_rss_kib=//p')
  echo "$out" | python3 -c "
import json, sys
d = json.load(sys.stdin)
print('%s SDK: initialize answered in %.1f ms; %d updates; %s; evtool peak RSS %.1f MiB; %.0f s in all' % (
  '$client'.upper() if '$client' == 'ts' else 'Go', d['initMs'], d.get('updateCount', 0),
  ('longest line %d bytes' % d['maxLine']) if 'maxLine' in d else '%d prompt results, stop reasons %s' % (len(d['results']), sorted({r['stopReason'] for r in d['results']})),
  $rss / 1024, $end - $start))"
done
# The longest message evtool writes for it, as bytes.
"$tmp/evtool" convert --to acp --transcript "$tmp/rec.jsonl" 2>/dev/null | LC_ALL=C awk '{ if (length($0) > m) m = length($0) } END { print "longest transcript line: " m " bytes (limit 8388608)" }'
