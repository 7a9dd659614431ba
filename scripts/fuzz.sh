#!/usr/bin/env bash
# `make fuzz`: every fuzz target for FUZZTIME each (default 1m), one at a time (go test -fuzz
# takes one target per run). FuzzAPIRequest needs PostgreSQL: run under scripts/test.sh, as
# `make fuzz` does. A failing input is written under the package's testdata/fuzz/ and the run
# stops there with exit status 1; commit the input with the fix, as a regression seed.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-1m}
targets=(
  ingest:FuzzCollect
  website:FuzzNormaliseDomain
  website:FuzzParsePrefix
  website:FuzzExclusionLists
  handlers:FuzzAPIRequest
)
for t in "${targets[@]}"; do
  pkg=${t%%:*} name=${t#*:}
  echo "== $name ($pkg) for $fuzztime"
  go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" "./$pkg/" 2>&1 | grep -v '^fuzz: elapsed'
done
