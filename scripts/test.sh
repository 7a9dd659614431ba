#!/usr/bin/env bash
# Runs a command (the test suite by default) against a throw-away PostgreSQL cluster that it
# starts and removes itself: durability off, Unix socket only.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/cc.sh install

dir=$(mktemp -d /tmp/analytics-test-pg.XXXXXX)
mdir=$(mktemp -d /tmp/analytics-test-mariadb.XXXXXX)
cleanup() { scripts/postgres.sh stop "$dir"; rm -rf "$dir"; scripts/mariadb.sh stop "$mdir"; rm -rf "$mdir"; }
trap cleanup EXIT
DATABASE_URL=$(scripts/postgres.sh start "$dir" fast)
export DATABASE_URL

# A throw-away MariaDB for the phpAnalytics import's tests (Unix socket only). Without it those
# tests fail, saying why; the others run.
if MARIADB_DSN=$(scripts/mariadb.sh start "$mdir"); then
  export MARIADB_DSN
else
  echo "warning: MariaDB could not be started: the phpAnalytics import's tests will fail" >&2
fi

# Published user-agent corpora for the bot-detection accuracy test (npm registry, pinned).
if [ ! -d .cache/corpora/crawler-user-agents ] || [ ! -d .cache/corpora/user-agents ]; then
  ingest/testdata/fetch-corpora.sh .cache/corpora >/dev/null
fi
UA_CORPUS_DIR=$PWD/.cache/corpora
export UA_CORPUS_DIR

# axe-core, injected into the stats pages by the browser tests (accessibility checks).
AXE_VERSION=4.14.1
if [ ! -f .cache/npm/axe-core/axe.min.js ] || ! grep -q "\"version\": \"$AXE_VERSION\"" .cache/npm/axe-core/package.json; then
  scripts/npm-fetch.sh "axe-core@$AXE_VERSION" \
    sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ== .cache/npm >/dev/null
fi
AXE_JS=$PWD/.cache/npm/axe-core/axe.min.js
export AXE_JS

# Plausible's official tracker (npm), which the collector must serve unchanged (ingest's
# TestPlausibleTrackerInBrowser drives it in chromium).
PLAUSIBLE_TRACKER_VERSION=0.4.6
if [ ! -f .cache/npm/@plausible-analytics/tracker/plausible.js ] || ! grep -q "\"version\": \"$PLAUSIBLE_TRACKER_VERSION\"" .cache/npm/@plausible-analytics/tracker/package.json; then
  scripts/npm-fetch.sh "@plausible-analytics/tracker@$PLAUSIBLE_TRACKER_VERSION" \
    sha512-nbu6xGgSP6jeYuoVklZBzucUnIpo75tVu3Kr+R0EDycVKaMC/jF5Q/YCaM/8gR4fPZ1IDcXt6FdBJFZ1uZwEPA== .cache/npm >/dev/null
fi
PLAUSIBLE_TRACKER_JS=$PWD/.cache/npm/@plausible-analytics/tracker/plausible.js
export PLAUSIBLE_TRACKER_JS

if [ $# -eq 0 ]; then set -- go test -race -count=1 ./...; fi
"$@"
