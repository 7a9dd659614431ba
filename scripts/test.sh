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

if [ $# -eq 0 ]; then set -- go test -race -count=1 ./...; fi
"$@"
