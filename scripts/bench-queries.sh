#!/usr/bin/env bash
# `make bench-queries`: the attack of issue 43 on the real server (BenchmarkQueryStorm in
# cmd/analytics): one key's 20 heavy queries at once, 20 of the heaviest its bounds let
# through, 5 patterns that burn a core, a thousand years of hours; beside another user's
# reads, /readyz and hits. Prints, a phase each, the other user's latency, /readyz failures,
# how soon their hits are counted, the attacker's answers, the server's peak RSS and how long
# after the attack the server was idle again.
#
# BENCH_REV=REV measures the server of that git revision instead of the working tree's (the
# benchmark is always the working tree's): `BENCH_REV=main make bench-queries` is before.
# BENCH_STORM_VISITS (10,000) is the visits a day of each website, over 31 days.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d /tmp/analytics-bench-queries.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -n "${BENCH_REV:-}" ]; then
  mkdir -p "$work/src"
  git archive "$BENCH_REV" | tar -x -C "$work/src"
  (cd "$work/src" && go build -o "$work/analytics" ./cmd/analytics)
  BENCH_SERVER_BIN=$work/analytics
  export BENCH_SERVER_BIN
  echo "server built from $BENCH_REV ($(git rev-parse --short "$BENCH_REV"))" >&2
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
scripts/test.sh go test -run '^$' -bench QueryStorm -benchtime 1x -count 1 -timeout 120m -v ./cmd/analytics/
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
