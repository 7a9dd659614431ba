#!/usr/bin/env bash
# Installs the published user-agent corpora that the ingest tests measure the
# bot detector against (TestBotDetectionOnPublishedCorpora):
#   crawler-user-agents  real crawler user agents ("instances"): recall
#   user-agents          real browser user agents: false positives
#
# Usage: ingest/testdata/fetch-corpora.sh [DIR]   (default: <repo>/.cache/corpora)
# then:  UA_CORPUS_DIR=DIR go test ./ingest/
#
# The corpora are test data, never committed: .cache/ is git-ignored.
set -euo pipefail

# Exact versions, with the registry's integrity for each tarball, so that the
# recorded figures (docs/enrichment.md) stay reproducible and a re-published
# tarball fails loudly instead of shifting them.
packages=(
	"crawler-user-agents@1.60.0 sha512-p8hKVsnZl3msolBhGW8s86V0tmmcuBSwhTXkzkegGQzTt0A/ysKDHKzek9fichfqL5qBEgDrR9CuGBU0Y7bDrg=="
	"user-agents@2.1.198 sha512-cpFqEfpW1DW7MZYfJaknK5mNJZBgUwfroY0y1jSVy8Y93T4pmP0wp5HhXTOqZUbUbFppp0fwCyfttG9rsl3vqw=="
)

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dest=${1:-$repo/.cache/corpora}
for entry in "${packages[@]}"; do
	read -r spec want <<<"$entry"
	"$repo/scripts/npm-fetch.sh" "$spec" "$want" "$dest"
done

echo "Run the tests with: UA_CORPUS_DIR=$dest go test ./ingest/"
