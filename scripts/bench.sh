#!/usr/bin/env bash
# bench.sh runs every acceptance benchmark of the project, takes the median
# of repeated runs, and rewrites the summary table in docs/benchmarks.md
# (between the "bench:begin" and "bench:end" markers). The detailed sections
# below the table keep their own history.
#
# Usage: scripts/bench.sh [COUNT]      COUNT repeated runs per row (default 3)
#        ROWS="search episode" scripts/bench.sh   only some rows
#
# It takes 20–40 minutes on a 2-core machine (the 1M-product search and the
# 100k-trajectory export build their fixtures). Run it on an otherwise idle
# machine: every number is a wall-clock time.
set -euo pipefail

cd "$(dirname "$0")/.."
count="${1:-3}"
rows="${ROWS:-dev scoring episode metagraph weights suite export search}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
doc=docs/benchmarks.md

# median FILE UNIT: the median of the values reported with UNIT in go test
# -bench output (one value per "Benchmark..." line).
median() {
	awk -v unit="$2" '/^Benchmark/ { for (i = 3; i < NF; i++) if ($(i+1) == unit) print $i }' "$1" |
		sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit } m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "%.4g\n", m }'
}

# bench NAME PKG REGEX BENCHTIME [TIMEOUT]: runs the benchmark COUNT times.
bench() {
	local name="$1" pkg="$2" regex="$3" benchtime="$4" timeout="${5:-30m}"
	echo "== $name: go test $pkg -run '^\$' -bench '$regex' -benchtime $benchtime -count $count" >&2
	go test "$pkg" -run '^$' -bench "$regex" -benchtime "$benchtime" -count "$count" -timeout "$timeout" | tee "$out/$name.txt" >&2
}

table="$out/table.md"
row() { # measure | command | median | target | verdict
	printf '| %s | `%s` | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$5" >>"$table"
}
# verdict VALUE OP LIMIT: "met" or "**missed**".
verdict() {
	awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN { if (v == "n/a") { print "not run"; exit }
		ok = (op == "<=") ? (v + 0 <= l + 0) : (v + 0 >= l + 0); print ok ? "met" : "**missed**" }'
}
ms() { awk -v v="$1" 'BEGIN { if (v == "n/a") print v; else printf "%.3g\n", v / 1e6 }'; }
sec() { awk -v v="$1" 'BEGIN { if (v == "n/a") print v; else printf "%.3g\n", v / 1e9 }'; }

for r in $rows; do
	case "$r" in
	search)
		bench search ./shop 'FindProduct/products=1000000$' 20000x 60m
		p50=$(median "$out/search.txt" p50-ms); p99=$(median "$out/search.txt" p99-ms)
		build=$(median "$out/search.txt" build-s); rss=$(median "$out/search.txt" rss-MB)
		cmd="go test ./shop -run '^\$' -bench 'FindProduct/products=1000000\$' -benchtime 20000x"
		row "search, 1M products: find_product p50" "$cmd" "$p50 ms" "≤ 2 ms" "$(verdict "$p50" '<=' 2)"
		row "search, 1M products: find_product p99" "$cmd" "$p99 ms" "≤ 20 ms" "$(verdict "$p99" '<=' 20)"
		row "search, 1M products: index build" "$cmd" "$build s" "≤ 60 s" "$(verdict "$build" '<=' 60)"
		row "search, 1M products: RSS after build" "$cmd" "$rss MB" "≤ 3072 MB" "$(verdict "$rss" '<=' 3072)"
		;;
	episode)
		bench episode ./episode 'Loopback/miners=64/in-flight=64$' 3x
		tps=$(median "$out/episode.txt" toolcalls/s); ovh=$(median "$out/episode.txt" overhead-p50-ms)
		cmd="go test ./episode -run '^\$' -bench 'Loopback/miners=64/in-flight=64\$' -benchtime 3x"
		row "episodes: 64 miners, 30-step episodes, 100k catalog: tool calls/s" "$cmd" "$tps" "≥ 5000" "$(verdict "$tps" '>=' 5000)"
		row "episodes: validator-added latency per step, p50" "$cmd" "$ovh ms" "≤ 1 ms" "$(verdict "$ovh" '<=' 1)"
		;;
	scoring)
		bench scoring ./scoring/judge 'RulesAndGrounding10k$' 3x
		s=$(sec "$(median "$out/scoring.txt" ns/op)")
		row "scoring: rules + grounding judge, 10,000 30-step trajectories" "go test ./scoring/judge -run '^\$' -bench 'RulesAndGrounding10k\$' -benchtime 3x" "$s s" "≤ 1 s" "$(verdict "$s" '<=' 1)"
		;;
	metagraph)
		bench metagraph ./chain 'Metagraph256/default' 5x
		m=$(ms "$(median "$out/metagraph.txt" ns/op)")
		row "chain: metagraph sync, 256 uids over websocket" "go test ./chain -run '^\$' -bench 'Metagraph256/default' -benchtime 5x" "$m ms" "≤ 300 ms" "$(verdict "$m" '<=' 300)"
		;;
	weights)
		bench weights ./scoring/weights 'Weights256$' 1s
		m=$(ms "$(median "$out/weights.txt" ns/op)")
		row "weights: policy + SDK-exact conversion, 256 uids" "go test ./scoring/weights -run '^\$' -bench 'Weights256\$'" "$m ms" "≤ 1 ms" "$(verdict "$m" '<=' 1)"
		;;
	export)
		bench export ./dataset 'Export100k$' 1x 90m
		s=$(median "$out/export.txt" export-s); rss=$(median "$out/export.txt" peak-RSS-MB)
		cmd="go test ./dataset -run '^\$' -bench 'Export100k\$' -benchtime 1x"
		row "export: 100,000 stored trajectories to SFT JSONL" "$cmd" "$s s" "≤ 60 s" "$(verdict "$s" '<=' 60)"
		row "export: peak RSS" "$cmd" "$rss MB" "< 500 MB" "$(verdict "$rss" '<=' 500)"
		;;
	suite)
		bench suite ./suite 'Generate10kFrom100k$|Cluster100k$' 1x
		gen=$(sec "$(awk '/^BenchmarkGenerate10kFrom100k/ { print $3 }' "$out/suite.txt" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')")
		clu=$(sec "$(awk '/^BenchmarkCluster100k/ { print $3 }' "$out/suite.txt" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')")
		row "suite: generate 10,000 problems from a 100k catalog" "go test ./suite -run '^\$' -bench 'Generate10kFrom100k\$' -benchtime 1x" "$gen s" "≤ 60 s" "$(verdict "$gen" '<=' 60)"
		row "suite: cluster 100,000 problems" "go test ./suite -run '^\$' -bench 'Cluster100k\$' -benchtime 1x" "$clu s" "≤ 30 s" "$(verdict "$clu" '<=' 30)"
		;;
	dev)
		go build -o "$out/arena" ./cmd/arena
		: >"$out/dev.txt"
		for i in $(seq "$count"); do
			d="$out/dev$i"
			start=$(date +%s.%N)
			if ! "$out/arena" dev --races 1 --data "$d/arena-data" --listen 127.0.0.1:0 >"$out/dev-$i.log" 2>&1; then
				echo "arena dev --races 1 failed:" >&2
				tail -20 "$out/dev-$i.log" >&2
				exit 1
			fi
			end=$(date +%s.%N)
			awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f\n", e - s }' >>"$out/dev.txt"
		done
		wall=$(sort -g "$out/dev.txt" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
		row "arena dev --races 1, wall time (8 miners, 20k catalog)" "go build ./cmd/arena && arena dev --races 1" "$wall s" "≤ 300 s" "$(verdict "$wall" '<=' 300)"
		;;
	*) echo "unknown row $r" >&2; exit 2 ;;
	esac
done

cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
{
	echo "<!-- bench:begin (generated by scripts/bench.sh; edits here are overwritten) -->"
	echo "## Summary (scripts/bench.sh)"
	echo
	echo "Generated $(date -u +%Y-%m-%d) on $(nproc) cores ($cpu), $mem, $(go version | awk '{print $3}'). Each figure is the median of $count runs."
	echo
	echo "| measure | command | median | target | |"
	echo "|---|---|---|---|---|"
	cat "$table"
	echo
	echo "<!-- bench:end -->"
} >"$out/section.md"

if grep -q '<!-- bench:begin' "$doc"; then
	awk -v sec="$out/section.md" '
		/<!-- bench:begin/ { while ((getline l < sec) > 0) print l; skip = 1; next }
		/<!-- bench:end/ { skip = 0; next }
		!skip { print }' "$doc" >"$out/doc.md"
else
	awk -v sec="$out/section.md" 'NR == 1 { print; print ""; while ((getline l < sec) > 0) print l; next } { print }' "$doc" >"$out/doc.md"
fi
cp "$out/doc.md" "$doc"
echo "rewrote the summary table in $doc" >&2
