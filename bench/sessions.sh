#!/usr/bin/env bash
# bench/sessions.sh — sessions on disk and usage reports (issues 23, 24).
#
#   bench/sessions.sh [DIR]            # or: make bench-sessions
#
# Generates (bench/genhistory) a history of FILES Claude Code transcripts,
# BYTES in all, and one transcript of BIG bytes, under DIR (default: a new
# temporary directory), then runs, RUNS rounds (3 by default), each
# command once per round, in turn:
#
#   history:  evtool sessions H/.claude
#             evtool usage --by day --format json H/.claude/projects
#             ccusage daily --offline --json      (HOME=H CLAUDE_CONFIG_DIR=H/.claude)
#   one file: evtool sessions B/.claude   (the one file)
#             evtool stats FILE, evtool validate FILE,
#             evtool convert --to canonical FILE -o /dev/null
#             ccusage daily --offline --json      (HOME=B …), for reference
#
# and prints one table: each command's median wall time, median CPU time
# (user + system: the machine is shared, and CPU time varies less than
# wall time), median peak RSS (/usr/bin/time's "Maximum resident set
# size"), and, for evtool, whether that peak is within 64 MiB + 2 × the
# longest line. Everything generated is deleted at the end.
#
# Environment: FILES (750), BYTES (4G), BIG (700M), SEED (1), RUNS (3),
# CCUSAGE (internal/testkit/ccusagediff/node_modules/.bin/ccusage; installed by
# `npm install --prefix internal/testkit/ccusagediff`).
set -euo pipefail

FILES=${FILES:-750}
BYTES=${BYTES:-4G}
BIG=${BIG:-700M}
SEED=${SEED:-1}
RUNS=${RUNS:-3}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CCUSAGE=${CCUSAGE:-$ROOT/internal/testkit/ccusagediff/node_modules/.bin/ccusage}
[ -x "$CCUSAGE" ] || { echo "bench/sessions.sh: no ccusage at $CCUSAGE (npm install --prefix internal/testkit/ccusagediff)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/sessions.sh: needs GNU time at /usr/bin/time" >&2; exit 2; }

if [ $# -ge 1 ]; then
	mkdir -p "$1"
	WORK=$(mktemp -d "$1/sessions-bench.XXXXXX")
else
	WORK=$(mktemp -d)
fi
trap 'rm -rf "$WORK"' EXIT

# Disk: the history and the big file must fit, with 5% to spare.
bytes() { # SIZE with a K, M or G suffix → bytes
	local s=$1
	case $s in
	*K) echo $((${s%K} << 10)) ;; *M) echo $((${s%M} << 20)) ;; *G) echo $((${s%G} << 30)) ;; *) echo "$s" ;;
	esac
}
need=$((($(bytes "$BYTES") + $(bytes "$BIG")) * 105 / 100))
avail=$(($(df -Pk "$WORK" | awk 'NR==2 {print $4}') * 1024))
df -h "$WORK" | sed 's/^/# /'
if [ "$avail" -lt "$need" ]; then
	echo "bench/sessions.sh: $WORK has $((avail >> 20)) MiB free, $((need >> 20)) MiB needed" >&2
	exit 2
fi

echo "# building evtool and genhistory"
(cd "$ROOT" && go build -o "$WORK/evtool" ./cmd/evtool && go build -o "$WORK/genhistory" ./bench/genhistory)
EV=$WORK/evtool

H=$WORK/history
B=$WORK/big
echo "# generating: $FILES files, $BYTES (seed $SEED); one file of $BIG"
t0=$(date +%s)
hist=$("$WORK/genhistory" -out "$H" -files "$FILES" -bytes "$BYTES" -seed "$SEED")
big=$("$WORK/genhistory" -out "$B" -files 1 -bytes "$BIG" -seed "$SEED")
echo "# history: $hist; big: $big ($(($(date +%s) - t0)) s)"
hist_long=$(sed -E 's/.*longest line ([0-9]+) bytes.*/\1/' <<<"$hist")
big_long=$(sed -E 's/.*longest line ([0-9]+) bytes.*/\1/' <<<"$big")
BIGFILE=$(find "$B" -name '*.jsonl')
sync

# The commands: a label, the limit on evtool's peak RSS (0: none), and the
# command line (run through env, so that HOME and CLAUDE_CONFIG_DIR can be
# set for ccusage).
LABELS=() LIMITS=() CMDS=()
add() { LABELS+=("$1"); LIMITS+=("$2"); CMDS+=("$3"); }
hlim=$(((64 << 20) + 2 * hist_long))
blim=$(((64 << 20) + 2 * big_long))
add "history: evtool sessions" "$hlim" "$EV sessions $H/.claude"
add "history: evtool usage --by day" "$hlim" "$EV usage --by day --format json $H/.claude/projects"
add "history: ccusage daily" 0 "HOME=$H CLAUDE_CONFIG_DIR=$H/.claude $CCUSAGE daily --offline --json"
add "$BIG file: evtool sessions DIR" "$blim" "$EV sessions $B/.claude"
add "$BIG file: evtool stats FILE" "$blim" "$EV stats $BIGFILE"
add "$BIG file: evtool validate FILE" "$blim" "$EV validate $BIGFILE"
add "$BIG file: evtool convert --to canonical" "$blim" "$EV convert --to canonical $BIGFILE -o /dev/null"
add "$BIG file: ccusage daily" 0 "HOME=$B CLAUDE_CONFIG_DIR=$B/.claude $CCUSAGE daily --offline --json"

M=$WORK/measure
mkdir -p "$M"
for run in $(seq "$RUNS"); do
	for i in "${!CMDS[@]}"; do
		# shellcheck disable=SC2086 # the command line is split on purpose
		/usr/bin/time -f '%e %U %S %M' -o "$M/$i.$run" env ${CMDS[$i]} >"$M/$i.out" 2>"$M/$i.err" || true
		echo "# run $run: ${LABELS[$i]}: $(tail -n1 "$M/$i.$run")" >&2
	done
done

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

echo
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "History: $hist. Big file: $big. Medians of $RUNS runs."
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
	lim=${LIMITS[$i]}
	verdict="—"
	if [ "$lim" -gt 0 ]; then
		if [ $((rss * 1024)) -le "$lim" ]; then verdict="$((lim >> 20)) ok"; else verdict="$((lim >> 20)) OVER"; fi
	fi
	printf '| %s | %s | %s | %s | %.1f (%.1f) | %s |\n' "${LABELS[$i]}" "$runs" "$wall" "$cpu" "$(awk -v k="$rss" 'BEGIN {print k / 1024}')" "$(awk -v k="$top" 'BEGIN {print k / 1024}')" "$verdict"
done
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f×", a / b; else print "—"}'; }
echo "ccusage daily ÷ evtool usage --by day, history: wall $(ratio "${WALL[2]}" "${WALL[1]}"), CPU $(ratio "${CPU[2]}" "${CPU[1]}")"
echo "ccusage daily ÷ evtool sessions, history: wall $(ratio "${WALL[2]}" "${WALL[0]}"), CPU $(ratio "${CPU[2]}" "${CPU[0]}")"
echo
# What each wrote on stderr (the last run), in short: a problem shows here.
for i in "${!CMDS[@]}"; do
	if [ -s "$M/$i.err" ]; then
		echo "# stderr of ${LABELS[$i]}: $(tail -n1 "$M/$i.err" | cut -c1-200)"
	fi
done
