#!/usr/bin/env bash
# bench/compare.sh — evtool side by side with ajv and jq on one generated
# basis stream. See docs/performance.md.
#
#   bench/compare.sh                 # or: make compare
#   RUNS=3 SIZE_MB=50 bench/compare.sh
#
# Environment:
#   RUNS     rounds: each command runs once a round, in turn; the median
#            of its runs is reported (default 5)
#   SIZE_MB  size of the generated basis stream in MB of 10^6 bytes (default 100)
#   SEED     generator seed (default 1)
#   EXTRA    1 to also measure linear growth (a stream 10× SIZE_MB, the
#            medians of GROWTH_RUNS runs, default 3) and
#            peak RSS on a stream of CALLS tool calls (default 2,000,000)
#   EVTOOL   an evtool binary to measure (default: built from this tree)
#   KEEP     a file to keep the generated stream in (default: a temp dir)
#
# Commands measured, each reading the same file, output to /dev/null:
#   evtool validate --dialect basis -q
#   evtool convert --from basis --to canonical
#   evtool convert --from basis --to acp
#   ajv: node bench/ajv-lines.mjs (readline, JSON.parse, ajv/dist/2020
#        validate of each line against schema/basis.schema.json)
#   jq -c .  (parse and re-serialise every line: a floor for "read JSON")
#   two copies of evtool validate -j 1 at once (what two busy threads get
#        from this machine: the ceiling of any two-worker speed-up)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=${RUNS:-5}
SIZE_MB=${SIZE_MB:-100}
SEED=${SEED:-1}
GO=${GO:-go}

die() { echo "compare.sh: $*" >&2; exit 1; }

[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, not '$RUNS'"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install time)"
command -v node >/dev/null || die "node is missing"
command -v npm >/dev/null || die "npm is missing"
if ! command -v jq >/dev/null; then
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
		echo "compare.sh: installing jq" >&2
		apt-get update -qq && apt-get install -y -qq jq >/dev/null
	else
		die "jq is missing (apt-get install jq)"
	fi
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/evtool-compare.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

cd "$ROOT"
if [[ ! -d bench/node_modules/ajv ]]; then
	npm ci --prefix bench --no-audit --no-fund --silent
fi
if [[ -z ${EVTOOL:-} ]]; then
	EVTOOL=$TMP/evtool
	$GO build -o "$EVTOOL" ./cmd/evtool
fi

IN=${KEEP:-$TMP/basis.jsonl}
echo "generating a ${SIZE_MB} MB basis stream (seed $SEED) ..." >&2
$GO run ./bench/gen -dialect basis -mb "$SIZE_MB" -seed "$SEED" >"$IN"
BYTES=$(stat -c %s "$IN")
LINES=$(wc -l <"$IN")
# The stream must be valid, or the figures compare different work.
"$EVTOOL" validate --dialect basis -q "$IN" >"$TMP/diags" || die "the generated stream is not valid: $(head -3 "$TMP/diags")"

# median of numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

# The commands, each as a name and a command line. They are run in
# rounds, each command once a round, so that a change in the machine's load
# (it is shared) falls on all of them alike rather than on whichever ran
# then; each gets the median wall time and median peak RSS (KiB, from
# /usr/bin/time -v) of its RUNS runs.
declare -A SECS RSS SPREAD CMDLINE TIMES RSSS
NAMES=()
add() {
	local name=$1
	shift
	NAMES+=("$name")
	CMDLINE[$name]=$(printf '%q ' "$@")
}
run1() {
	local name=$1 t0 t1
	t0=$(date +%s.%N)
	if ! eval "/usr/bin/time -v -o $TMP/time ${CMDLINE[$name]}" >/dev/null 2>"$TMP/err"; then
		cat "$TMP/err" >&2
		die "$name failed"
	fi
	t1=$(date +%s.%N)
	TIMES[$name]+="$(echo "$t1 - $t0" | bc -l) "
	RSSS[$name]+="$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/time") "
}

add "evtool validate" "$EVTOOL" validate --dialect basis -q "$IN"
add "evtool validate -j 1" "$EVTOOL" validate --dialect basis -q -j 1 "$IN"
add "evtool convert --to canonical" "$EVTOOL" convert --from basis --to canonical "$IN"
add "evtool convert --to canonical -j 1" "$EVTOOL" convert --from basis --to canonical -j 1 "$IN"
add "evtool convert --to acp" "$EVTOOL" convert --from basis --to acp "$IN"
add "evtool convert --to acp -j 1" "$EVTOOL" convert --from basis --to acp -j 1 "$IN"
add "ajv (node, per line)" node bench/ajv-lines.mjs schema/basis.schema.json "$IN"
add "jq -c ." jq -c . "$IN"
# What two cores give on this machine: two single-worker runs at once. On a
# machine whose two CPUs share a physical core or a power budget, each
# runs slower while the other is busy, and no program gets 2× from two.
add "two validate -j 1 at once" bash -c 'set -e; "$0" "$@" & p=$!; "$0" "$@"; wait $p' "$EVTOOL" validate --dialect basis -q -j 1 "$IN"

echo "measuring, $RUNS rounds of every command ..." >&2
for ((i = 0; i < RUNS; i++)); do
	for n in "${NAMES[@]}"; do
		run1 "$n"
	done
	echo "  round $((i + 1)) of $RUNS done" >&2
done
for n in "${NAMES[@]}"; do
	SECS[$n]=$(tr ' ' '\n' <<<"${TIMES[$n]}" | grep . | median)
	RSS[$n]=$(tr ' ' '\n' <<<"${RSSS[$n]}" | grep . | median)
	SPREAD[$n]=$(tr ' ' '\n' <<<"${TIMES[$n]}" | grep . | sort -g | awk 'NR==1 {lo=$1} {hi=$1} END {printf "%.2f..%.2f", lo, hi}')
	printf '  %-34s %8.2f s (runs %s)\n' "$n" "${SECS[$n]}" "${SPREAD[$n]}" >&2
done

mbps() { echo "$BYTES / 1000000 / $1" | bc -l; }
lps() { echo "$LINES / $1" | bc -l; }

echo
echo "input: $(printf '%.1f' "$(echo "$BYTES/1000000" | bc -l)") MB, $LINES lines (generated basis, seed $SEED)"
echo "machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $($GO env GOVERSION), node $(node --version), ajv $(node -p 'require("./bench/node_modules/ajv/package.json").version'), $(jq --version)"
echo "evtool: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$([[ -n $(git -C "$ROOT" status --porcelain 2>/dev/null) ]] && echo ' (working tree has changes)')"
echo "medians of $RUNS runs, the commands taken in turn in each of $RUNS rounds"
echo
printf '| %-30s | %9s | %9s | %12s | %13s | %13s |\n' command "time (s)" "MB/s" "lines/s" "peak RSS MiB" "runs (s)"
printf '|%s|%s|%s|%s|%s|%s|\n' -------------------------------- ----------- ----------- -------------- --------------- ---------------
for n in "${NAMES[@]}"; do
	printf '| %-30s | %9.2f | %9.1f | %12.0f | %13.1f | %13s |\n' "$n" "${SECS[$n]}" "$(mbps "${SECS[$n]}")" "$(lps "${SECS[$n]}")" "$(echo "${RSS[$n]}/1024" | bc -l)" "${SPREAD[$n]}"
done
echo
echo "throughput ratios (above 1: evtool is faster):"
for n in "evtool validate" "evtool convert --to canonical" "evtool convert --to acp"; do
	printf '  %-30s %5.2f× ajv   %5.2f× jq   %5.2f× itself with -j 1\n' "$n" \
		"$(echo "${SECS["ajv (node, per line)"]} / ${SECS[$n]}" | bc -l)" \
		"$(echo "${SECS["jq -c ."]} / ${SECS[$n]}" | bc -l)" \
		"$(echo "${SECS["$n -j 1"]} / ${SECS[$n]}" | bc -l)"
done

pair=${SECS["two validate -j 1 at once"]}
printf '  two-core ceiling: two "validate -j 1" at once take %.2f s against %.2f s for one,\n' "$pair" "${SECS["evtool validate -j 1"]}"
printf '    so this machine runs two busy threads %.2f× as fast as one (two whole cores: 2.00×)\n' \
	"$(echo "2 * ${SECS["evtool validate -j 1"]} / $pair" | bc -l)"

# The workers must not change a byte of the output.
for to in canonical acp; do
	"$EVTOOL" convert --from basis --to "$to" -j 1 "$IN" 2>/dev/null | sha256sum >"$TMP/one"
	"$EVTOOL" convert --from basis --to "$to" -j "$(nproc)" "$IN" 2>/dev/null | sha256sum >"$TMP/all"
	if cmp -s "$TMP/one" "$TMP/all"; then
		echo "  --to $to: -j 1 and -j $(nproc) write identical bytes"
	else
		die "--to $to: -j 1 and -j $(nproc) write different bytes"
	fi
done

[[ ${EXTRA:-0} == 1 ]] || exit 0

# peak RSS (KiB) and wall time of one run
once() {
	/usr/bin/time -f '%e %M' -o "$TMP/once" "$@" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; die "$* failed"; }
	cat "$TMP/once"
}
longest() { awk '{ if (length($0) > m) m = length($0) } END { print m }' "$1"; }

echo
BIG=$TMP/big.jsonl
echo "generating a $((SIZE_MB * 10)) MB basis stream ..." >&2
$GO run ./bench/gen -dialect basis -mb "$((SIZE_MB * 10))" -seed "$SEED" >"$BIG"
# medianof N CMD...: the median wall time and the largest peak RSS of N
# runs of CMD.
medianof() {
	local n=$1 i ts=() ms=() t m
	shift
	for ((i = 0; i < n; i++)); do
		read -r t m < <(once "$@")
		ts+=("$t")
		ms+=("$m")
	done
	echo "$(printf '%s\n' "${ts[@]}" | median) $(printf '%s\n' "${ms[@]}" | sort -g | tail -1)"
}
GROWTH_RUNS=${GROWTH_RUNS:-3}
echo "linear growth and memory, $((SIZE_MB * 10)) MB against $SIZE_MB MB (medians of $GROWTH_RUNS runs each, the larger peak RSS):"
for cmd in "validate --dialect basis -q" "convert --from basis --to canonical" "convert --from basis --to acp"; do
	read -r t1 m1 < <(medianof "$GROWTH_RUNS" "$EVTOOL" $cmd "$IN")
	read -r t10 m10 < <(medianof "$GROWTH_RUNS" "$EVTOOL" $cmd "$BIG")
	printf '  %-38s %6.2f s / %6.2f s = %5.2f×   peak RSS %4.0f MiB / %4.0f MiB\n' "$cmd" "$t10" "$t1" \
		"$(echo "$t10 / $t1" | bc -l)" "$(echo "$m10/1024" | bc -l)" "$(echo "$m1/1024" | bc -l)"
done
echo "  longest line: $(longest "$BIG") bytes"
rm -f "$BIG"

CALLS=${CALLS:-2000000}
MANY=$TMP/calls.jsonl
echo "generating a basis stream of $CALLS tool calls ..." >&2
$GO run ./bench/gen -dialect basis -mb 0 -lean -calls "$CALLS" -seed "$SEED" >"$MANY"
echo "a stream of $CALLS tool calls ($(stat -c %s "$MANY") bytes, longest line $(longest "$MANY") bytes):"
for cmd in "validate --dialect basis -q" "convert --from basis --to canonical" "convert --from basis --to acp"; do
	read -r t m < <(once "$EVTOOL" $cmd "$MANY")
	printf '  %-38s %6.2f s   peak RSS %4.0f MiB\n' "$cmd" "$t" "$(echo "$m/1024" | bc -l)"
done
