#!/usr/bin/env bash
# fuzz.sh: run every go test -fuzz target of the project, one after another.
#
# Usage: scripts/fuzz.sh [SECONDS]
#
#   SECONDS  how long each target fuzzes (default 60).
#
# Targets run sequentially (a fuzz run uses every core), each with
#   go test -run '^$' -fuzz '^FuzzX$' -fuzztime ${SECONDS}s ./pkg
# The script stops at the first failing target; go test then writes the
# crashing input to pkg/testdata/fuzz/FuzzX/, where it becomes a seed that
# plain `go test` replays. At the end (or at the failure) it prints a summary
# table: target, seconds, execs, new interesting inputs, result. Full logs
# are kept in $FUZZ_LOG_DIR (default: a temporary directory).
# Set FUZZ_PARALLEL to pass -parallel (fuzzing workers; default GOMAXPROCS),
# FUZZ_ONLY to an extended regexp to run only the targets whose name matches.
set -euo pipefail

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }

case "${1:-}" in
-h | --help)
	usage
	exit 0
	;;
esac
seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
	usage >&2
	exit 2
fi

cd "$(dirname "$0")/.."

# package target, in the order they run.
targets=(
	"./episode FuzzDecode"
	"./shop FuzzToolExecute"
	"./shop/pyexec FuzzRun"
	"./shop FuzzLoadCatalog"
	"./suite FuzzImportShoppingBench"
	"./suite FuzzImportORO"
	"./config FuzzLoadConfig"
	# Older targets: the tool executor on a hand-made catalog, the product
	# JSON decoder and the grounding judge's observer.
	"./shop FuzzExecute"
	"./shop FuzzDecodeProduct"
	"./scoring/judge FuzzObserve"
)

logdir="${FUZZ_LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/arena-fuzz.XXXXXX")}"
mkdir -p "$logdir"
parallel=()
if [[ -n "${FUZZ_PARALLEL:-}" ]]; then
	parallel=(-parallel "$FUZZ_PARALLEL")
fi

rows=()
summary() {
	printf '\n%-40s %8s %14s %12s  %s\n' "TARGET" "SECONDS" "EXECS" "NEW INPUTS" "RESULT"
	for row in "${rows[@]}"; do
		# shellcheck disable=SC2086 # row holds space-separated fields
		printf '%-40s %8s %14s %12s  %s\n' $row
	done
	echo "logs: $logdir"
}

status=0
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	if [[ -n "${FUZZ_ONLY:-}" ]] && ! grep -qE "$FUZZ_ONLY" <<<"$name"; then
		continue
	fi
	pkgname="${pkg#./}"
	log="$logdir/${pkgname//\//_}-$name.log"
	echo "== $pkg $name (${seconds}s)"
	start=$(date +%s)
	result=ok
	if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "${seconds}s" "${parallel[@]}" "$pkg" >"$log" 2>&1; then
		result=FAIL
	fi
	took=$(($(date +%s) - start))
	# The last progress line: "fuzz: elapsed: 1m0s, execs: 123456 (2050/sec), new interesting: 12 (total: 40)".
	last=$(grep -E '^fuzz: elapsed: .*execs: ' "$log" | tail -n 1 || true)
	execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
	newin=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
	rows+=("$pkgname.$name $took ${execs:--} ${newin:--} $result")
	tail -n 3 "$log" || true
	if [[ "$result" != ok ]]; then
		echo "!! $name failed; full log in $log" >&2
		grep -E 'Failing input written to|--- FAIL|panic:|fuzz_test.go:[0-9]+' "$log" | head -n 20 >&2 || true
		status=1
		break
	fi
done

summary
exit "$status"
