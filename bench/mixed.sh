#!/usr/bin/env bash
# bench/mixed.sh — the daily report over a mixed history, beside ccusage
# (issue 24: "one of 10 GB mixed agents").
#
#   bench/mixed.sh [DIR]            # or: make bench-mixed
#
# Generates (bench/genhistory) a history of Claude Code transcripts, Codex
# rollouts and Gemini CLI chats in each agent's standard layout under DIR
# (default: a new temporary directory), then runs, RUNS rounds (3 by
# default), each command once per round, in turn:
#
#   evtool usage --by day --format json   (no operand: every agent's standard
#                                          location under HOME)
#   evtool sessions --no-cache            (the same, listed)
#   ccusage daily --offline --json        (every agent it reads, as evtool)
#
# and prints one table: median wall time, median CPU time (user + system),
# median peak RSS, and whether evtool's peak is within 64 MiB + 2 × the
# longest line. It then compares the two tools' token totals per agent.
# Everything generated is deleted at the end.
#
# Environment: CLAUDE_FILES (1100), CLAUDE_BYTES (6G), CODEX_FILES (500),
# CODEX_BYTES (2.5G), GEMINI_FILES (300), GEMINI_BYTES (1.5G), SEED (1),
# RUNS (3), CCUSAGE (internal/testkit/ccusagediff/node_modules/.bin/ccusage).
set -euo pipefail

CLAUDE_FILES=${CLAUDE_FILES:-1100}
CLAUDE_BYTES=${CLAUDE_BYTES:-6G}
CODEX_FILES=${CODEX_FILES:-500}
CODEX_BYTES=${CODEX_BYTES:-2.5G}
GEMINI_FILES=${GEMINI_FILES:-300}
GEMINI_BYTES=${GEMINI_BYTES:-1.5G}
SEED=${SEED:-1}
RUNS=${RUNS:-3}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CCUSAGE=${CCUSAGE:-$ROOT/internal/testkit/ccusagediff/node_modules/.bin/ccusage}
[ -x "$CCUSAGE" ] || { echo "bench/mixed.sh: no ccusage at $CCUSAGE (npm install --prefix internal/testkit/ccusagediff)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/mixed.sh: needs GNU time at /usr/bin/time" >&2; exit 2; }

if [ $# -ge 1 ]; then
	mkdir -p "$1"
	WORK=$(mktemp -d "$1/mixed-bench.XXXXXX")
else
	WORK=$(mktemp -d)
fi
trap 'rm -rf "$WORK"' EXIT

gib() { awk -v s="$1" 'BEGIN {m = 1; if (s ~ /G$/) m = 2^30; else if (s ~ /M$/) m = 2^20; else if (s ~ /K$/) m = 2^10; sub(/[KMG]$/, "", s); printf "%d\n", s * m}'; }
need=$((($(gib "$CLAUDE_BYTES") + $(gib "$CODEX_BYTES") + $(gib "$GEMINI_BYTES")) * 105 / 100))
avail=$(($(df -Pk "$WORK" | awk 'NR==2 {print $4}') * 1024))
df -h "$WORK" | sed 's/^/# /'
if [ "$avail" -lt "$need" ]; then
	echo "bench/mixed.sh: $WORK has $((avail >> 20)) MiB free, $((need >> 20)) MiB needed" >&2
	exit 2
fi

echo "# building evtool and genhistory"
(cd "$ROOT" && go build -o "$WORK/evtool" ./cmd/evtool && go build -o "$WORK/genhistory" ./bench/genhistory)
EV=$WORK/evtool
H=$WORK/home
echo "# generating (seed $SEED)"
t0=$(date +%s)
gen=$("$WORK/genhistory" -out "$H" -seed "$SEED" -files "$CLAUDE_FILES" -bytes "$CLAUDE_BYTES" \
	-codex-files "$CODEX_FILES" -codex-bytes "$CODEX_BYTES" -gemini-files "$GEMINI_FILES" -gemini-bytes "$GEMINI_BYTES")
echo "$gen" | sed 's/^/# /'
echo "# generated in $(($(date +%s) - t0)) s; $(du -sb "$H" | cut -f1) bytes"
longest=$(sed -E 's/.*longest line ([0-9]+) bytes.*/\1/' <<<"$gen" | sort -g | tail -n1)
lim=$(((64 << 20) + 2 * longest))
sync

ENV="HOME=$H CLAUDE_CONFIG_DIR=$H/.claude CODEX_HOME=$H/.codex XDG_CACHE_HOME=$WORK/cache TZ=UTC"
LABELS=("evtool usage --by day" "evtool sessions --no-cache" "ccusage daily")
CMDS=("$EV usage --by day --format json"
	"$EV sessions --no-cache --format json"
	"$CCUSAGE daily --offline --json")
M=$WORK/measure
mkdir -p "$M"
for run in $(seq "$RUNS"); do
	for i in "${!CMDS[@]}"; do
		# shellcheck disable=SC2086 # the environment words are split on purpose
		/usr/bin/time -f '%e %U %S %M' -o "$M/$i.$run" env $ENV sh -c "${CMDS[$i]}" >"$M/$i.out" 2>"$M/$i.err" || true
		echo "# run $run: ${LABELS[$i]}: $(tail -n1 "$M/$i.$run")" >&2
	done
done

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
echo
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "History: $(echo "$gen" | paste -sd';'). Medians of $RUNS runs."
echo
echo "| command | wall s (runs) | wall s | CPU s | peak RSS MiB (max) | RSS limit MiB |"
echo "|---|---|---|---|---|---|"
WALL=() CPU=()
for i in "${!CMDS[@]}"; do
	runs=$(for r in $(seq "$RUNS"); do tail -n1 "$M/$i.$r" | awk '{print $1}'; done | paste -sd' ')
	wall=$(for r in $(seq "$RUNS"); do tail -n1 "$M/$i.$r" | awk '{print $1}'; done | median)
	cpu=$(for r in $(seq "$RUNS"); do tail -n1 "$M/$i.$r" | awk '{printf "%.2f\n", $2 + $3}'; done | median)
	rss=$(for r in $(seq "$RUNS"); do tail -n1 "$M/$i.$r" | awk '{print $4}'; done | median)
	top=$(for r in $(seq "$RUNS"); do tail -n1 "$M/$i.$r" | awk '{print $4}'; done | sort -g | tail -n1)
	WALL+=("$wall") CPU+=("$cpu")
	verdict="—"
	case ${LABELS[$i]} in evtool*)
		if [ $((rss * 1024)) -le "$lim" ]; then verdict="$((lim >> 20)) ok"; else verdict="$((lim >> 20)) OVER"; fi
	esac
	printf '| %s | %s | %s | %s | %.1f (%.1f) | %s |\n' "${LABELS[$i]}" "$runs" "$wall" "$cpu" "$(awk -v k="$rss" 'BEGIN {print k / 1024}')" "$(awk -v k="$top" 'BEGIN {print k / 1024}')" "$verdict"
done
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f×", a / b; else print "—"}'; }
echo "ccusage ÷ evtool usage --by day: wall $(ratio "${WALL[2]}" "${WALL[0]}"), CPU $(ratio "${CPU[2]}" "${CPU[0]}")"

# The figures: each agent's token total, evtool's (usage --by agent) and
# ccusage's (ccusage AGENT daily), which must agree.
# shellcheck disable=SC2086
env $ENV "$EV" usage --by agent --format json >"$WORK/ev-agents.json"
for a in claude codex gemini; do
	# shellcheck disable=SC2086
	env $ENV "$CCUSAGE" "$a" daily --offline --json >"$WORK/cc-$a.json"
done
python3 - "$WORK" <<'EOF'
import json, sys
w = sys.argv[1]
ev = {r["agent"]: r for r in json.load(open(w + "/ev-agents.json"))["rows"]}
for cc, agent in {"claude": "claude-code", "codex": "codex", "gemini": "gemini-cli"}.items():
    t = json.load(open(f"{w}/cc-{cc}.json"))["totals"]
    r = ev.get(agent, {})
    same = "equal" if t.get("totalTokens") == r.get("all_tokens") else "DIFFERENT"
    cost = t.get("totalCost", t.get("costUSD"))
    print(f"{agent}: tokens ccusage {t.get('totalTokens')}, evtool {r.get('all_tokens')} ({same}); cost ccusage {cost}, evtool {r.get('cost_usd')}")
EOF
for i in "${!CMDS[@]}"; do
	if [ -s "$M/$i.err" ]; then
		echo "# stderr of ${LABELS[$i]}: $(tail -n1 "$M/$i.err" | cut -c1-200)"
	fi
done
