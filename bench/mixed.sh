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

ME=bench/mixed.sh
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_setup "$@"
bench_disk $(($(bytes "$CLAUDE_BYTES") + $(bytes "$CODEX_BYTES") + $(bytes "$GEMINI_BYTES")))

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
add "evtool usage --by day" "$lim" "$ENV $EV usage --by day --format json"
add "evtool sessions --no-cache" "$lim" "$ENV $EV sessions --no-cache --format json"
add "ccusage daily" 0 "$ENV $CCUSAGE daily --offline --json"

bench_run
echo
echo "History: $(echo "$gen" | paste -sd';'). Medians of $RUNS runs."
bench_table
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
bench_stderr
