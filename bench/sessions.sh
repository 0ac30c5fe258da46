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
#   history:  evtool sessions --no-cache H/.claude   (every session read)
#             evtool sessions H/.claude              (the summaries cache)
#             evtool usage --by day --format json H/.claude/projects
#             ccusage daily --offline --json      (HOME=H CLAUDE_CONFIG_DIR=H/.claude)
#   one file: evtool sessions --no-cache B/.claude   (the one file)
#             evtool usage --by day --format json B/.claude/projects
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

ME=bench/sessions.sh
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_setup "$@"
bench_disk $(($(bytes "$BYTES") + $(bytes "$BIG")))

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
hlim=$(((64 << 20) + 2 * hist_long))
blim=$(((64 << 20) + 2 * big_long))
# evtool's summaries cache goes under the work directory, never the
# user's own; sessions is measured cold (--no-cache: every session read)
# and with the cache the round before left (the first round writes it).
C="XDG_CACHE_HOME=$WORK/cache"
add "history: evtool sessions --no-cache" "$hlim" "$C $EV sessions --no-cache $H/.claude"
add "history: evtool sessions (cached)" "$hlim" "$C $EV sessions $H/.claude"
add "history: evtool usage --by day" "$hlim" "$C $EV usage --by day --format json $H/.claude/projects"
add "history: ccusage daily" 0 "HOME=$H CLAUDE_CONFIG_DIR=$H/.claude $CCUSAGE daily --offline --json"
add "$BIG file: evtool sessions --no-cache DIR" "$blim" "$C $EV sessions --no-cache $B/.claude"
add "$BIG file: evtool usage --by day DIR" "$blim" "$C $EV usage --by day --format json $B/.claude/projects"
add "$BIG file: evtool stats FILE" "$blim" "$EV stats $BIGFILE"
add "$BIG file: evtool validate FILE" "$blim" "$EV validate $BIGFILE"
add "$BIG file: evtool convert --to canonical" "$blim" "$EV convert --to canonical $BIGFILE -o /dev/null"
add "$BIG file: ccusage daily" 0 "HOME=$B CLAUDE_CONFIG_DIR=$B/.claude $CCUSAGE daily --offline --json"

bench_run
echo
echo "History: $hist. Big file: $big. Medians of $RUNS runs."
bench_table
echo "ccusage daily ÷ evtool usage --by day, history: wall $(ratio "${WALL[3]}" "${WALL[2]}"), CPU $(ratio "${CPU[3]}" "${CPU[2]}")"
echo "ccusage daily ÷ evtool sessions --no-cache, history: wall $(ratio "${WALL[3]}" "${WALL[0]}"), CPU $(ratio "${CPU[3]}" "${CPU[0]}")"
echo
bench_stderr
