#!/usr/bin/env bash
# bench/compare.sh — evtool side by side with ajv and jq, for every dialect
# in three shapes of stream. See docs/performance.md.
#
#   bench/compare.sh                 # or: make compare
#   SIZE_MB=30 RUNS=3 bench/compare.sh
#   DIALECTS="basis codex" SHAPES=small SIZE_MB=5 RUNS=1 bench/compare.sh
#
# Shapes (bench/gen, package internal/testkit/streamgen):
#   large     generated turns whose tool calls carry whole files (8–48 KB
#             inputs, outputs to 60 KB): few lines, long ones
#   small     generated lines of every event type, ~130 bytes a line in
#             basis (text deltas ~100, tool events ~150): the cost per line
#   captures  the real captures beside the repository (../shared) of the
#             dialect, one after another and again to the size, each copy
#             with fresh ids; bench/gen says on stderr which it left out
# large and small are made for each dialect evtool writes, captures for
# each dialect with captures, read-only ones included (opencode-storage
# has none: its store is a database, not a stream).
#
# Environment:
#   SIZE_MB   size of each stream in MB of 10^6 bytes (default 100)
#   RUNS      rounds: each command of a case runs once a round, in turn;
#             the median of its runs is reported (default 3)
#   DIALECTS  dialects to measure, space-separated (default: all)
#   SHAPES    shapes to measure (default: "large small captures")
#   SEED      generator seed (default 1)
#   EVTOOL    an evtool binary to measure (default: built from this tree)
#   GEN       a bench/gen binary (default: built from this tree)
#   KEEP      a directory to keep the streams in, and to take them from
#             when they are there already (default: a temp dir, emptied
#             case by case)
#   EXTRA     1 to also measure, on the large basis stream, linear growth
#             (a stream 10× SIZE_MB, medians of GROWTH_RUNS runs, default 3)
#             and peak RSS on a stream of CALLS tool calls (default
#             2,000,000)
#   CEILING   0 to skip the two-core ceiling (two validate -j 1 at once,
#             measured on the first case)
#
# Commands of each case, each reading the same file, output to /dev/null:
#   evtool validate --dialect D -q           (and with -j 1)
#   evtool convert --from D --to canonical   (and with -j 1)
#   evtool convert --from D --to acp         (and with -j 1)
#   ajv: node bench/ajv-lines.mjs schema/D.schema.json (copied at the
#        start, as the binaries are built at the start; readline,
#        JSON.parse, ajv/dist/2020 validate of each line)
#   jq -c .  (parse and re-serialise every line: a floor for "read JSON")
#   ajv on the stream's first line alone: node's start and the schema's
#        compilation, a fixed cost inside every ajv figure
# and, once a case, whether -j 1 and the default write the same bytes.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=${RUNS:-3}
SIZE_MB=${SIZE_MB:-100}
SEED=${SEED:-1}
SHAPES=${SHAPES:-large small captures}
GO=${GO:-go}
export LC_ALL=C.UTF-8 # ${#s} counts characters; awk's length is run in C, bytes

die() { echo "compare.sh: $*" >&2; exit 1; }

[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, not '$RUNS'"
[[ $SIZE_MB =~ ^[1-9][0-9]*$ ]] || die "SIZE_MB must be a positive integer, not '$SIZE_MB'"
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
# One binary of each for the whole run: the tree may change meanwhile.
REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')
if [[ -n $(git -C "$ROOT" status --porcelain 2>/dev/null) ]]; then
	REV+=" (working tree has changes)"
fi
if [[ -n ${EVTOOL:-} ]]; then
	REV="$EVTOOL (EVTOOL); the tree was at $REV"
else
	EVTOOL=$TMP/evtool
	$GO build -o "$EVTOOL" ./cmd/evtool
fi
if [[ -z ${GEN:-} ]]; then
	GEN=$TMP/gen
	$GO build -o "$GEN" ./bench/gen
fi
# and the schemas ajv reads, for the same reason.
SCHEMAS=$TMP/schema
mkdir -p "$SCHEMAS"
cp schema/*.json "$SCHEMAS"/
if [[ -n ${KEEP:-} ]]; then
	mkdir -p "$KEEP"
	STREAMS=$KEEP
else
	STREAMS=$TMP
fi

# The dialects: those evtool writes, and those it only reads.
WRITABLE=() READONLY=()
while read -r name rest; do
	if [[ $rest == *", read-only)"* ]]; then READONLY+=("$name"); else WRITABLE+=("$name"); fi
done < <("$EVTOOL" dialects)
if [[ -n ${DIALECTS:-} ]]; then
	read -ra WANT <<<"$DIALECTS"
else
	WANT=("${WRITABLE[@]}" "${READONLY[@]}")
fi
writable() { local d; for d in "${WRITABLE[@]}"; do [[ $d == "$1" ]] && return 0; done; return 1; }
known() { local d; for d in "${WRITABLE[@]}" "${READONLY[@]}"; do [[ $d == "$1" ]] && return 0; done; return 1; }

CASES=() NOTES=()
for shape in $SHAPES; do
	case $shape in large | small | captures) ;; *) die "unknown shape '$shape' (large, small, captures)" ;; esac
	for d in "${WANT[@]}"; do
		known "$d" || die "unknown dialect '$d' (evtool dialects)"
		if [[ $shape == captures ]]; then
			if [[ -z $("$GEN" -dialect "$d" -shape captures -list) ]]; then
				NOTES+=("$d: no captures beside the repository, no captures row")
				continue
			fi
		elif ! writable "$d"; then
			continue # read-only: only its captures
		fi
		CASES+=("$d/$shape")
	done
done
((${#CASES[@]})) || die "nothing to measure (DIALECTS='${DIALECTS:-}', SHAPES='$SHAPES')"

# median of numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }
longest() { LC_ALL=C awk '{ if (length($0) > m) m = length($0) } END { print m+0 }' "$1"; }
calc() { echo "$*" | bc -l; }

# stream D SHAPE MB: the path of the stream, made unless KEEP has it.
stream() {
	local d=$1 shape=$2 mb=$3 f
	f=$STREAMS/$d.$shape.${mb}mb.seed$SEED.jsonl
	if [[ ! -s $f ]]; then
		"$GEN" -dialect "$d" -shape "$shape" -mb "$mb" -seed "$SEED" >"$f.part" 2>"$TMP/gen.err" || {
			cat "$TMP/gen.err" >&2
			die "bench/gen -dialect $d -shape $shape failed"
		}
		mv "$f.part" "$f"
	fi
	if [[ -s $TMP/gen.err ]]; then sed 's/^/  /' "$TMP/gen.err" >&2; fi
	: >"$TMP/gen.err"
	echo "$f"
}

# The commands of a case, each as a name and a command line. They are run
# in rounds, each command once a round, so that a change in the machine's
# load (it is shared) falls on all of them alike rather than on whichever
# ran then; each gets the median wall time of its RUNS runs, the median
# and the largest peak RSS (KiB, from /usr/bin/time -v).
declare -A CMDLINE TIMES RSSS CPUS OKRC
NAMES=()
add() {
	local name=$1 ok=$2
	shift 2
	NAMES+=("$name")
	CMDLINE[$name]=$(printf '%q ' "$@")
	OKRC[$name]=$ok # exit statuses taken as a run that worked
	TIMES[$name]="" RSSS[$name]="" CPUS[$name]=""
}
run1() {
	local name=$1 t0 t1 rc=0 out=/dev/null
	[[ $name == ajv ]] && out=$TMP/ajv.out
	t0=$(date +%s.%N)
	eval "/usr/bin/time -v -o $TMP/time ${CMDLINE[$name]}" >"$out" 2>"$TMP/err" || rc=$?
	t1=$(date +%s.%N)
	if [[ " ${OKRC[$name]} " != *" $rc "* ]]; then
		cat "$TMP/err" >&2
		die "$name failed (exit status $rc): ${CMDLINE[$name]}"
	fi
	TIMES[$name]+="$(calc "$t1 - $t0") "
	RSSS[$name]+="$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/time") "
	CPUS[$name]+="$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$TMP/time") "
}
med() { tr ' ' '\n' <<<"${TIMES[$1]}" | grep . | median; }
spread() { tr ' ' '\n' <<<"${TIMES[$1]}" | grep . | sort -g | awk 'NR==1 {lo=$1} {hi=$1} END {printf "%.2f..%.2f", lo, hi}'; }
medcpu() { tr ' ' '\n' <<<"${CPUS[$1]}" | grep . | median; }
maxrss() { tr ' ' '\n' <<<"${RSSS[$1]}" | grep . | sort -g | tail -1; }

# Results, by "case name".
declare -A R
EVCMDS=(validate "validate -j 1" canonical "canonical -j 1" acp "acp -j 1")
CEIL_DONE=0

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
n=0
for c in "${CASES[@]}"; do
	n=$((n + 1))
	d=${c%/*} shape=${c#*/}
	echo "[$n/${#CASES[@]}] $d, $shape: making a ${SIZE_MB} MB stream ..." >&2
	IN=$(stream "$d" "$shape" "$SIZE_MB")
	R[$c bytes]=$(stat -c %s "$IN")
	R[$c lines]=$(wc -l <"$IN")
	R[$c longest]=$(longest "$IN")
	# What validate finds in it (the stream should have no errors: a
	# stream with errors is other work than a valid one).
	sumline=$("$EVTOOL" validate --dialect "$d" "$IN" 2>&1 >/dev/null | tail -1 || true)
	R[$c errors]=$(sed -nE 's/.* ([0-9]+) errors?.*/\1/p' <<<"$sumline")
	R[$c warnings]=$(sed -nE 's/.* ([0-9]+) warnings?.*/\1/p' <<<"$sumline")
	NAMES=()
	add validate "0 1" "$EVTOOL" validate --dialect "$d" -q "$IN"
	add "validate -j 1" "0 1" "$EVTOOL" validate --dialect "$d" -q -j 1 "$IN"
	add canonical 0 "$EVTOOL" convert --from "$d" --to canonical "$IN"
	add "canonical -j 1" 0 "$EVTOOL" convert --from "$d" --to canonical -j 1 "$IN"
	add acp 0 "$EVTOOL" convert --from "$d" --to acp "$IN"
	add "acp -j 1" 0 "$EVTOOL" convert --from "$d" --to acp -j 1 "$IN"
	add ajv "0 1" node bench/ajv-lines.mjs "$SCHEMAS/$d.schema.json" "$IN"
	add jq 0 jq -c . "$IN"
	# ajv's fixed cost: node's start and the schema's compilation, on the
	# stream's first line alone (part of every ajv figure: the smaller the
	# stream, the larger its share).
	head -1 "$IN" >"$TMP/first.jsonl"
	add "ajv start" "0 1" node bench/ajv-lines.mjs "$SCHEMAS/$d.schema.json" "$TMP/first.jsonl"
	if [[ ${CEILING:-1} == 1 && $CEIL_DONE == 0 ]]; then
		# What two cores give on this machine: two single-worker runs at
		# once. On a machine whose two CPUs share a physical core or a
		# power budget, each runs slower while the other is busy, and no
		# program gets 2× from two.
		add pair 0 bash -c 'set -e; "$0" "$@" & p=$!; "$0" "$@"; wait $p' "$EVTOOL" validate --dialect "$d" -q -j 1 "$IN"
	fi
	for ((i = 0; i < RUNS; i++)); do
		for name in "${NAMES[@]}"; do
			run1 "$name"
		done
	done
	for name in "${NAMES[@]}"; do
		R[$c $name]=$(med "$name")
		R[$c $name spread]=$(spread "$name")
		R[$c $name rss]=$(maxrss "$name")
		R[$c $name cpu]=$(medcpu "$name")
		printf '  %-16s %8.2f s (runs %s), peak RSS %5.0f MiB\n' "$name" "${R[$c $name]}" "${R[$c $name spread]}" "$(calc "${R[$c $name rss]}/1024")" >&2
	done
	R[$c ajv invalid]=$(node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log(r.invalid+r.unparsable)' "$TMP/ajv.out" 2>/dev/null || echo '?')
	if [[ -n ${CMDLINE[pair]:-} ]]; then
		CEIL_DONE=1
		CEIL_CASE=$c
		unset 'CMDLINE[pair]'
	fi
	rss=0
	for name in "${EVCMDS[@]}"; do
		((${R[$c $name rss]} > rss)) && rss=${R[$c $name rss]}
	done
	R[$c rss]=$rss
	# The workers must not change a byte of the output.
	same=✓
	for to in canonical acp; do
		"$EVTOOL" convert --from "$d" --to "$to" -j 1 "$IN" 2>/dev/null | sha256sum >"$TMP/one"
		"$EVTOOL" convert --from "$d" --to "$to" "$IN" 2>/dev/null | sha256sum >"$TMP/all"
		cmp -s "$TMP/one" "$TMP/all" || { same=✗; echo "  --to $to: -j 1 and the default write different bytes" >&2; }
	done
	R[$c same]=$same
	[[ -n ${KEEP:-} ]] || rm -f "$IN"
done

# ratio A B: A/B with two decimals; mark RATIO TARGET: ✓ or ✗
ratio() { printf '%.2f' "$(calc "$1 / $2")"; }
mark() { if (($(calc "$1 >= $2"))); then echo ✓; else echo ✗; fi; }

# row WIDTH... -- CELL...: one markdown table row, each cell padded to its
# width in characters (printf pads bytes: ✓ and × are several).
row() {
	local w=() c i out="|"
	while [[ $1 != -- ]]; do w+=("$1"); shift; done
	shift
	for ((i = 0; i < ${#w[@]}; i++)); do
		c=${1-}
		shift || true
		if ((w[i] < 0)); then
			out+=" $(printf '%*s' $((-w[i] - ${#c})) '')$c |" # right-aligned
		else
			out+=" $c$(printf '%*s' $((w[i] - ${#c})) '') |"
		fi
	done
	echo "$out"
}
rule() {
	local out="|" x
	for x in "$@"; do out+="$(printf -- '-%.0s' $(seq 1 $((${x#-} + 2))))|"; done
	echo "$out"
}

echo
echo "inputs: ${SIZE_MB} MB a stream (seed $SEED); shapes: $SHAPES"
echo "machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $($GO env GOVERSION 2>/dev/null || echo go?), node $(node --version), ajv $(node -p 'require("./bench/node_modules/ajv/package.json").version'), $(jq --version)"
echo "evtool: $REV"
echo "load average (1, 5, 15 min) at the start: $LOAD0; at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "medians of $RUNS runs, the commands of a case taken in turn in each of $RUNS rounds; ratios above 1: evtool is faster"
echo "targets: validate ≥ 3× ajv (default workers) and ≥ 1.5× ajv (-j 1); convert ≥ 5× jq -c . (default workers; -j 1 in brackets);"
echo "  peak RSS (the largest of every evtool run of the case) ≤ 64 MiB + 2× the longest line;
  µs/line: validate -j 1, wall time and CPU time (user + system) a line"
echo
W=(17 8 -4 -6 12 12 17 17 13 -13 4)
row "${W[@]}" -- dialect shape MB B/line "validate/ajv" "-j 1/ajv" "canonical/jq" "acp/jq" "peak RSS MiB" "µs/line, CPU" same
rule "${W[@]}"
for c in "${CASES[@]}"; do
	d=${c%/*} shape=${c#*/}
	[[ -n ${R[$c validate]:-} ]] || continue
	v=$(ratio "${R[$c ajv]}" "${R[$c validate]}")
	v1=$(ratio "${R[$c ajv]}" "${R[$c validate -j 1]}")
	cn=$(ratio "${R[$c jq]}" "${R[$c canonical]}")
	cn1=$(ratio "${R[$c jq]}" "${R[$c canonical -j 1]}")
	ac=$(ratio "${R[$c jq]}" "${R[$c acp]}")
	ac1=$(ratio "${R[$c jq]}" "${R[$c acp -j 1]}")
	limit=$(calc "65536 + 2 * ${R[$c longest]} / 1024")
	us=$(calc "${R[$c validate -j 1]} * 1000000 / ${R[$c lines]}")
	uscpu=$(calc "${R[$c validate -j 1 cpu]} * 1000000 / ${R[$c lines]}")
	row "${W[@]}" -- "$d" "$shape" "$(printf '%.0f' "$(calc "${R[$c bytes]} / 1000000")")" "$(printf '%.0f' "$(calc "${R[$c bytes]} / ${R[$c lines]}")")" \
		"$v× $(mark "$v" 3)" "$v1× $(mark "$v1" 1.5)" "$cn× $(mark "$cn" 5) ($cn1×)" "$ac× $(mark "$ac" 5) ($ac1×)" \
		"$(printf '%.0f' "$(calc "${R[$c rss]} / 1024")") ≤ $(printf '%.0f' "$(calc "$limit / 1024")") $(mark "$(calc "$limit - ${R[$c rss]}")" 0)" "$(printf '%.1f, %.1f' "$us" "$uscpu")" "${R[$c same]}"
done

echo
echo "seconds (medians of wall time; CPU: of user + system time), and what the stream holds:"
echo
W=(17 8 -9 -7 -8 -6 -6 -6 -6 -6 -6 -6 -9 -8 -7 -7 -13 -7)
row "${W[@]}" -- dialect shape lines longest validate "-j 1" canon "-j 1" acp "-j 1" ajv jq "ajv start" "CPU -j 1" "CPU ajv" "CPU jq" "errors/warns" "ajv bad"
rule "${W[@]}"
for c in "${CASES[@]}"; do
	d=${c%/*} shape=${c#*/}
	[[ -n ${R[$c validate]:-} ]] || continue
	cells=()
	for name in validate "validate -j 1" canonical "canonical -j 1" acp "acp -j 1" ajv jq "ajv start"; do
		cells+=("$(printf '%.2f' "${R[$c $name]}")")
	done
	row "${W[@]}" -- "$d" "$shape" "${R[$c lines]}" "$(numfmt --to=iec --suffix=B "${R[$c longest]}")" "${cells[@]}" \
		"$(printf '%.2f' "${R[$c validate -j 1 cpu]}")" "$(printf '%.2f' "${R[$c ajv cpu]}")" "$(printf '%.2f' "${R[$c jq cpu]}")" \
		"${R[$c errors]:-?}/${R[$c warnings]:-?}" "${R[$c ajv invalid]}"
done
echo
echo "peak RSS of each command, MiB (the largest of its runs):"
echo
W=(17 8 -8 -6 -6 -6 -6 -6 -6 -6 -7)
row "${W[@]}" -- dialect shape validate "-j 1" canon "-j 1" acp "-j 1" ajv jq longest
rule "${W[@]}"
for c in "${CASES[@]}"; do
	d=${c%/*} shape=${c#*/}
	[[ -n ${R[$c validate]:-} ]] || continue
	cells=()
	for name in validate "validate -j 1" canonical "canonical -j 1" acp "acp -j 1" ajv jq; do
		cells+=("$(printf '%.0f' "$(calc "${R[$c $name rss]} / 1024")")")
	done
	row "${W[@]}" -- "$d" "$shape" "${cells[@]}" "$(numfmt --to=iec --suffix=B "${R[$c longest]}")"
done
for note in "${NOTES[@]}"; do echo "  note: $note"; done

if [[ -n ${CEIL_CASE:-} ]]; then
	pair=${R[$CEIL_CASE pair]} one=${R[$CEIL_CASE validate -j 1]}
	echo
	printf 'two-core ceiling (%s): two "validate -j 1" at once take %.2f s against %.2f s for one,\n' "$CEIL_CASE" "$pair" "$one"
	printf '  so this machine runs two busy threads %.2f× as fast as one (two whole cores: 2.00×)\n' "$(calc "2 * $one / $pair")"
fi

[[ ${EXTRA:-0} == 1 ]] || exit 0

# peak RSS (KiB) and wall time of one run
once() {
	/usr/bin/time -f '%e %M' -o "$TMP/once" "$@" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; die "$* failed"; }
	cat "$TMP/once"
}

echo
IN=$(stream basis large "$SIZE_MB")
echo "generating a $((SIZE_MB * 10)) MB basis stream ..." >&2
BIG=$(stream basis large "$((SIZE_MB * 10))")
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
echo "linear growth and memory, $((SIZE_MB * 10)) MB against $SIZE_MB MB, basis, large (medians of $GROWTH_RUNS runs each, the larger peak RSS):"
for cmd in "validate --dialect basis -q" "convert --from basis --to canonical" "convert --from basis --to acp"; do
	read -r t1 m1 < <(medianof "$GROWTH_RUNS" "$EVTOOL" $cmd "$IN")
	read -r t10 m10 < <(medianof "$GROWTH_RUNS" "$EVTOOL" $cmd "$BIG")
	printf '  %-38s %6.2f s / %6.2f s = %5.2f× %s  peak RSS %4.0f MiB / %4.0f MiB\n' "$cmd" "$t10" "$t1" \
		"$(calc "$t10 / $t1")" "$(mark "$(calc "11 - $t10 / $t1")" 0)" "$(calc "$m10/1024")" "$(calc "$m1/1024")"
done
echo "  longest line: $(longest "$BIG") bytes"
[[ -n ${KEEP:-} ]] || rm -f "$BIG" "$IN"

CALLS=${CALLS:-2000000}
MANY=$TMP/calls.jsonl
echo "generating a basis stream of $CALLS tool calls ..." >&2
"$GEN" -dialect basis -mb 0 -lean -calls "$CALLS" -seed "$SEED" >"$MANY"
echo "a stream of $CALLS tool calls ($(stat -c %s "$MANY") bytes, longest line $(longest "$MANY") bytes):"
for cmd in "validate --dialect basis -q" "convert --from basis --to canonical" "convert --from basis --to acp"; do
	read -r t m < <(once "$EVTOOL" $cmd "$MANY")
	printf '  %-38s %6.2f s   peak RSS %4.0f MiB\n' "$cmd" "$t" "$(calc "$m/1024")"
done
