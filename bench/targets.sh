#!/usr/bin/env bash
# bench/targets.sh — peak memory of convert from every dialect to every
# dialect, against issue 25's allowance (64 MiB + 2x the longest line).
#
#   bench/targets.sh                   # or: make compare-targets
#   SIZE_MB=300 SOURCES=mermaid bench/targets.sh
#
# For each writable dialect S, a generated stream (bench/gen -shape small,
# SIZE_MB MB, seed SEED) is converted to each writable dialect T with
# `evtool convert --from S --to T`, output to /dev/null; each run's wall
# time and peak RSS (/usr/bin/time) is printed with the allowance for its
# input and ✓ or ✗. An encoder whose state grows with the stream (a map of
# every call it ever saw) shows here and nowhere else: bench/compare.sh
# converts to canonical and ACP only. Exit status 1 when a run is over its
# allowance or fails to finish, else 0.
#
# Environment:
#   SIZE_MB   size of each stream in MB of 10^6 bytes (default 100)
#   SEED      generator seed (default 2)
#   SOURCES   source dialects (default: every writable one)
#   TARGETS   target dialects (default: every writable one)
#   EVTOOL    an evtool binary (default: built from this tree)
#   GEN       a bench/gen binary (default: built from this tree)
#   KEEP      a directory to keep the streams in and take them from
#   TIMEOUT   seconds a run may take (default 900)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIZE_MB=${SIZE_MB:-100}
SEED=${SEED:-2}
TIMEOUT=${TIMEOUT:-900}
GO=${GO:-go}
die() { echo "targets.sh: $*" >&2; exit 2; }
[[ $SIZE_MB =~ ^[1-9][0-9]*$ ]] || die "SIZE_MB must be a positive integer, not '$SIZE_MB'"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install time)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/evtool-targets.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$ROOT"
if [[ -z ${EVTOOL:-} ]]; then
	EVTOOL=$TMP/evtool
	$GO build -o "$EVTOOL" ./cmd/evtool
fi
if [[ -z ${GEN:-} ]]; then
	GEN=$TMP/gen
	$GO build -o "$GEN" ./bench/gen
fi
STREAMS=${KEEP:-$TMP}
mkdir -p "$STREAMS"

WRITABLE=()
while read -r name rest; do
	[[ $rest == *", read-only)"* ]] || WRITABLE+=("$name")
done < <("$EVTOOL" dialects)
read -ra SRC <<<"${SOURCES:-${WRITABLE[*]}}"
read -ra DST <<<"${TARGETS:-${WRITABLE[*]}}"

echo "evtool convert, peak RSS against 64 MiB + 2x the longest line; small streams of $SIZE_MB MB, seed $SEED; $("$EVTOOL" --version 2>/dev/null || echo "$EVTOOL")"
printf '%-10s %-10s %9s %12s %12s %s\n' from to "wall s" "peak MiB" "allowance" ""
over=0
for s in "${SRC[@]}"; do
	f=$STREAMS/$s.small.${SIZE_MB}mb.seed$SEED.jsonl
	if [[ ! -s $f ]]; then
		"$GEN" -dialect "$s" -shape small -mb "$SIZE_MB" -seed "$SEED" >"$f.part" 2>"$TMP/gen.err" || { cat "$TMP/gen.err" >&2; die "bench/gen -dialect $s failed"; }
		mv "$f.part" "$f"
	fi
	longest=$(LC_ALL=C awk '{ if (length($0) > m) m = length($0) } END { print m+0 }' "$f")
	allow=$(((64 << 20) + 2 * longest))
	for t in "${DST[@]}"; do
		set +e
		/usr/bin/time -o "$TMP/time" -f "%e %M" timeout "$TIMEOUT" "$EVTOOL" convert --from "$s" --to "$t" "$f" >/dev/null 2>"$TMP/err"
		rc=$?
		set -e
		read -r wall kb <"$TMP/time" || { wall=?; kb=0; }
		mark="✓"
		if ((rc == 124)); then
			mark="✗ (did not finish in ${TIMEOUT} s)"
			over=$((over + 1))
		elif ((rc > 1)); then
			mark="✗ (exit status $rc: $(tail -1 "$TMP/err"))"
			over=$((over + 1))
		elif ((kb * 1024 > allow)); then
			mark="✗"
			over=$((over + 1))
		fi
		printf '%-10s %-10s %9s %12s %12s %s\n' "$s" "$t" "$wall" "$(echo "scale=1; $kb/1024" | bc)" "$(echo "scale=1; $allow/1048576" | bc)" "$mark"
	done
done
echo "targets.sh: $over runs over their allowance or unfinished"
((over == 0))
