#!/usr/bin/env bash
# bench/sameout.sh — do two evtool binaries give the same bytes?
#
#   bench/sameout.sh OLD NEW            # or: make sameout OLD=… NEW=…
#
# Runs both binaries over every test stream (testdata/streams, the probe
# streams, every adapter's testdata, ../shared's captures and corpus):
# `validate` (text and json reports) and `convert --to D` for every
# dialect D that `evtool dialects` lists, each with stdout, stderr and exit
# status kept apart, and reports every stream and command whose results
# differ. Exit status 0 when all are the same, 1 when any differs, 2 for
# usage errors. A refactoring that changes no behaviour must leave it at 0;
# a change that does must explain each difference it shows.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: bench/sameout.sh OLD NEW (two evtool binaries)" >&2; exit 2; }
OLD=$(realpath "$1")
NEW=$(realpath "$2")
[ -f "$OLD" ] && [ -x "$OLD" ] && [ -f "$NEW" ] && [ -x "$NEW" ] || { echo "bench/sameout.sh: $1 and $2 must be executable files" >&2; exit 2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

mapfile -t STREAMS < <(
	{
		find testdata/streams testdata/probe adapters -name '*.jsonl' -path '*testdata*' -not -path '*/golden/*' -not -path '*/node_modules/*'
		[ -d ../shared ] && find ../shared/corpus ../shared/dialects-next/captures -name '*.jsonl'
	} 2>/dev/null | sort
)
if [ -n "${TARGETS+set}" ]; then
	TARGETS_SET=1 # "" or " ": no conversions, validate alone
	read -r -a TARGETS <<<"$TARGETS"
else
	mapfile -t TARGETS < <("$NEW" dialects 2>/dev/null | awk 'NF {print $1}')
fi
[ ${#TARGETS[@]} -gt 0 ] || [ -n "${TARGETS_SET:-}" ] || { echo "bench/sameout.sh: $NEW dialects lists none" >&2; exit 2; }

# run BIN OUT ARGS… keeps stdout, stderr and the exit status of one run.
run() {
	local bin=$1 out=$2
	shift 2
	set +e
	"$bin" "$@" >"$out.stdout" 2>"$out.stderr"
	echo $? >"$out.status"
	set -e
}

differ=0
runs=0
for s in "${STREAMS[@]}"; do
	cmds=()
	if [ "${VALIDATE:-1}" != 0 ]; then
		cmds=("validate|validate $s" "validate-json|validate --format json $s")
	fi
	for t in "${TARGETS[@]}"; do
		cmds+=("to-$t|convert --to $t $s")
	done
	for c in "${cmds[@]}"; do
		name=${c%%|*}
		read -r -a args <<<"${c#*|}"
		run "$OLD" "$WORK/old" "${args[@]}"
		run "$NEW" "$WORK/new" "${args[@]}"
		runs=$((runs + 1))
		for part in status stdout stderr; do
			if ! cmp -s "$WORK/old.$part" "$WORK/new.$part"; then
				echo "differs: $s $name ($part)"
				differ=$((differ + 1))
			fi
		done
	done
done
echo "bench/sameout.sh: ${#STREAMS[@]} streams, $runs runs per binary, $differ differences"
[ "$differ" -eq 0 ]
