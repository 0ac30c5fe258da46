#!/usr/bin/env bash
# bench/instructions.sh — instructions executed by evtool's main commands on
# a generated basis stream, counted by valgrind. Unlike wall time on a
# shared machine, the count repeats to within a few percent, so it shows
# whether a change made a command do less work. See docs/performance.md.
#
#   bench/instructions.sh                      # the binary built from this tree
#   bench/instructions.sh OLD_BINARY NEW_BINARY
#
# Environment:
#   SIZE_MB  size of the generated stream (default 10)
#   SEED     generator seed (default 1)
#
# Each command runs with -j 1, GOMAXPROCS=1 and GOGC=off, so that neither
# the collector's timing nor the scheduler changes the count from run to
# run; the collector's own work is not counted.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIZE_MB=${SIZE_MB:-10}
SEED=${SEED:-1}
GO=${GO:-go}

die() { echo "instructions.sh: $*" >&2; exit 1; }
command -v valgrind >/dev/null || die "valgrind is missing (apt-get install valgrind)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/evtool-instructions.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

cd "$ROOT"
BINS=("$@")
if [[ ${#BINS[@]} == 0 ]]; then
	$GO build -o "$TMP/evtool" ./cmd/evtool
	BINS=("$TMP/evtool")
fi
for b in "${BINS[@]}"; do
	[[ -x $b ]] || die "$b is not an executable"
done

IN=$TMP/basis.jsonl
$GO run ./bench/gen -dialect basis -mb "$SIZE_MB" -seed "$SEED" >"$IN"

# count CMD...: the instructions CMD executes.
count() {
	GOGC=off GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file=/dev/null "$@" >/dev/null 2>"$TMP/vg" || true
	awk '/I *refs:/ {gsub(",", "", $NF); print $NF}' "$TMP/vg"
}

echo "instructions executed on a ${SIZE_MB} MB generated basis stream (seed $SEED), -j 1:"
printf '%-36s' ""
for b in "${BINS[@]}"; do printf ' %16s' "$(basename "$b")"; done
echo
for cmd in "validate --dialect basis -q" "convert --from basis --to canonical" "convert --from basis --to acp"; do
	printf '%-36s' "$cmd"
	first=""
	for b in "${BINS[@]}"; do
		n=$(count "$b" $cmd -j 1 "$IN")
		[[ -n $n ]] || die "valgrind gave no count for $b $cmd: $(tail -3 "$TMP/vg")"
		if [[ -z $first ]]; then
			first=$n
			printf ' %16s' "$n"
		else
			printf ' %16s' "$n ($(echo "scale=1; ($n - $first) * 100 / $first" | bc -l)%)"
		fi
	done
	echo
done
