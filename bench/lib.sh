# bench/lib.sh — what bench/sessions.sh and bench/mixed.sh share: the
# scratch directory, the disk check, the rounds of commands and the table
# of their medians. Sourced, not run.
#
# A script sets ME (its name for messages), calls bench_setup with its
# optional DIR operand, then fills LABELS, LIMITS (evtool's peak RSS limit
# in bytes; 0: none) and CMDS (a command line, split by env: VAR=value
# words first) with add, and calls bench_run and bench_table.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CCUSAGE=${CCUSAGE:-$ROOT/internal/testkit/ccusagediff/node_modules/.bin/ccusage}
RUNS=${RUNS:-3}
LABELS=() LIMITS=() CMDS=() WALL=() CPU=()

# bench_setup [DIR]: checks the tools, and makes WORK (under DIR, else a
# new temporary directory), removed at exit.
bench_setup() {
	[ -x "$CCUSAGE" ] || { echo "$ME: no ccusage at $CCUSAGE (npm install --prefix internal/testkit/ccusagediff)" >&2; exit 2; }
	[ -x /usr/bin/time ] || { echo "$ME: needs GNU time at /usr/bin/time" >&2; exit 2; }
	if [ $# -ge 1 ]; then
		mkdir -p "$1"
		WORK=$(mktemp -d "$1/$(basename "$ME" .sh)-bench.XXXXXX")
	else
		WORK=$(mktemp -d)
	fi
	trap 'rm -rf "$WORK"' EXIT
	M=$WORK/measure
	mkdir -p "$M"
}

# bytes SIZE: SIZE (a K, M or G suffix: powers of 1024, fractions allowed) in bytes.
bytes() {
	awk -v s="$1" 'BEGIN {m = 1; if (s ~ /G$/) m = 2^30; else if (s ~ /M$/) m = 2^20; else if (s ~ /K$/) m = 2^10; sub(/[KMG]$/, "", s); printf "%d\n", s * m}'
}

# bench_disk BYTES: exits unless WORK has BYTES free, and 5% to spare.
bench_disk() {
	local need=$(($1 * 105 / 100)) avail
	avail=$(($(df -Pk "$WORK" | awk 'NR==2 {print $4}') * 1024))
	df -h "$WORK" | sed 's/^/# /'
	if [ "$avail" -lt "$need" ]; then
		echo "$ME: $WORK has $((avail >> 20)) MiB free, $((need >> 20)) MiB needed" >&2
		exit 2
	fi
}

# add LABEL LIMIT COMMAND
add() { LABELS+=("$1"); LIMITS+=("$2"); CMDS+=("$3"); }

# bench_run: RUNS rounds, each command once a round, in turn.
bench_run() {
	local run i
	for run in $(seq "$RUNS"); do
		for i in "${!CMDS[@]}"; do
			# shellcheck disable=SC2086 # the command line is split on purpose
			/usr/bin/time -f '%e %U %S %M' -o "$M/$i.$run" env ${CMDS[$i]} >"$M/$i.out" 2>"$M/$i.err" || true
			echo "# run $run: ${LABELS[$i]}: $(tail -n1 "$M/$i.$run")" >&2
		done
	done
}

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# column I FIELD: the runs' values of command I's measure FIELD (awk).
column() {
	local r
	for r in $(seq "$RUNS"); do tail -n1 "$M/$1.$r" | awk "{$2}"; done
}

# bench_table: one row a command, with medians; WALL and CPU keep them.
bench_table() {
	local i runs wall cpu rss top lim verdict
	echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| command | wall s (runs) | wall s | CPU s | peak RSS MiB (max) | RSS limit MiB |"
	echo "|---|---|---|---|---|---|"
	for i in "${!CMDS[@]}"; do
		runs=$(column "$i" 'print $1' | paste -sd' ')
		wall=$(column "$i" 'print $1' | median)
		cpu=$(column "$i" 'printf "%.2f\n", $2 + $3' | median)
		rss=$(column "$i" 'print $4' | median)
		top=$(column "$i" 'print $4' | sort -g | tail -n1)
		WALL+=("$wall") CPU+=("$cpu")
		lim=${LIMITS[$i]}
		verdict="—"
		if [ "$lim" -gt 0 ]; then
			if [ $((rss * 1024)) -le "$lim" ]; then verdict="$((lim >> 20)) ok"; else verdict="$((lim >> 20)) OVER"; fi
		fi
		printf '| %s | %s | %s | %s | %.1f (%.1f) | %s |\n' "${LABELS[$i]}" "$runs" "$wall" "$cpu" "$(awk -v k="$rss" 'BEGIN {print k / 1024}')" "$(awk -v k="$top" 'BEGIN {print k / 1024}')" "$verdict"
	done
	echo
}

# ratio A B: A ÷ B, as "1.23×".
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f×", a / b; else print "—"}'; }

# bench_stderr: the last line each command wrote on stderr (the last run):
# a problem shows here.
bench_stderr() {
	local i
	for i in "${!CMDS[@]}"; do
		if [ -s "$M/$i.err" ]; then
			echo "# stderr of ${LABELS[$i]}: $(tail -n1 "$M/$i.err" | cut -c1-200)"
		fi
	done
}
