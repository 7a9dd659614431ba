#!/usr/bin/env bash
# Runs a command (the test suite by default) against a throw-away PostgreSQL cluster that it
# starts and removes itself: durability off, Unix socket only.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=$(mktemp -d /tmp/analytics-test-pg.XXXXXX)
cleanup() { scripts/postgres.sh stop "$dir"; rm -rf "$dir"; }
trap cleanup EXIT
DATABASE_URL=$(scripts/postgres.sh start "$dir" fast)
export DATABASE_URL

# Published user-agent corpora for the bot-detection accuracy test (npm registry, pinned).
if [ ! -d .cache/corpora/crawler-user-agents ] || [ ! -d .cache/corpora/user-agents ]; then
  ingest/testdata/fetch-corpora.sh .cache/corpora >/dev/null
fi
UA_CORPUS_DIR=$PWD/.cache/corpora
export UA_CORPUS_DIR

if [ $# -eq 0 ]; then set -- go test -race -count=1 ./...; fi
"$@"
