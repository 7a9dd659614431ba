#!/usr/bin/env bash
# `make bench-collector`: BenchmarkCollector (tools/loadgen) of this tree and of BENCH_REV
# (default main), built in a temporary worktree, alternating BENCH_COUNT runs of each so that a
# busy neighbour skews both alike; prints every run and the median ns/op of each. Needs
# DATABASE_URL (scripts/test.sh provides one).
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${BENCH_REV:-main}
count=${BENCH_COUNT:-5}
base=$(mktemp -d /tmp/analytics-bench-base.XXXXXX)
cleanup() { git worktree remove --force "$base" >/dev/null 2>&1 || rm -rf "$base"; }
trap cleanup EXIT
git worktree add -q --detach "$base" "$rev"
out=$(mktemp)
for i in $(seq 1 "$count"); do
  for tree in "$base" "$PWD"; do
    name=this; [ "$tree" = "$base" ] && name=$rev
    (cd "$tree" && go test -run '^$' -bench 'Collector$' -benchmem -count 1 -benchtime 3s ./tools/loadgen/) |
      awk -v n="$name" '/^BenchmarkCollector/ {print n, $3, $5, $7; fflush()}' | tee -a "$out"
  done
done
echo "median ns/op:"
for name in "$rev" this; do
  awk -v n="$name" '$1 == n {print $2}' "$out" | sort -n | awk -v n="$name" '{a[NR] = $1} END {print "  " n, a[int((NR + 1) / 2)]}'
done
rm -f "$out"
