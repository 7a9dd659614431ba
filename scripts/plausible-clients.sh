#!/usr/bin/env bash
# Re-records handlers/testdata/plausible-clients/*.json: two Plausible API clients nobody here
# wrote, run unchanged but for the base URL and the key, against this service's binary on a
# throw-away PostgreSQL, through a recording proxy (tools/plausiblerecord). TestPlausibleClients
# (make test) replays the recordings against a fresh service and checks every answer
# (docs/plausible-sites.md, "Clients run against it"). CI does not run this: the clients come
# from GitHub, which CI cannot reach; their git mirrors must be on this machine:
#   $PLAUSIBLE_MIRRORS/andrerfcsantos+go-plausible/repo   (commit 7550148)
#   $PLAUSIBLE_MIRRORS/rossigee+provider-plausible/repo   (commit 9b17a4d)
# (PLAUSIBLE_MIRRORS defaults to /work/.mirror). Their modules' dependencies come from the Go
# module proxy.
#
# Usage: scripts/test.sh scripts/plausible-clients.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
: "${DATABASE_URL:?run me through scripts/test.sh, which starts a throw-away PostgreSQL}"
mirrors=${PLAUSIBLE_MIRRORS:-/work/.mirror}
go=${GO:-go}
clients=(
  "go-plausible andrerfcsantos+go-plausible 7550148"
  "provider-plausible rossigee+provider-plausible 9b17a4d"
)
for c in "${clients[@]}"; do
  set -- $c
  git --git-dir="$mirrors/$2/repo" cat-file -e "$3^{commit}" 2>/dev/null ||
    { echo "plausible-clients: $mirrors/$2/repo has no commit $3" >&2; exit 1; }
done

work=$(mktemp -d /tmp/analytics-plausible-clients.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

$go build -o bin/analytics ./cmd/analytics
$go build -o "$work/plausiblerecord" ./tools/plausiblerecord

# A free port below 32768 (the kernel hands out ephemeral ports above it).
port=
for _ in $(seq 50); do
  candidate=$((20000 + RANDOM % 12000))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port=$candidate; break; fi
done
[ -n "$port" ] || { echo "plausible-clients: no free port found" >&2; exit 1; }
base=http://127.0.0.1:$port

bin/analytics migrate >"$work/migrate.log" 2>&1 || { cat "$work/migrate.log" >&2; exit 1; }
key=$(bin/analytics user create --email clients@example.com | tail -n 1)
# TRUSTED_PROXIES: go-plausible's events give the visitor's address in X-Forwarded-For.
LISTEN_ADDR=127.0.0.1:$port TRUSTED_PROXIES=127.0.0.1/32 FLUSH_INTERVAL=100ms \
  bin/analytics serve >"$work/server.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
  curl -sf -o /dev/null "$base/readyz" && break
  sleep 0.1
done

out=$root/handlers/testdata/plausible-clients
mkdir -p "$out"
for c in "${clients[@]}"; do
  set -- $c
  name=$1 repo=$2 commit=$3
  echo "plausible-clients: $name ($commit)"
  src=$work/$name
  mkdir -p "$src"
  git --git-dir="$mirrors/$repo/repo" archive "$commit" | tar -x -C "$src"
  if [ "$name" = provider-plausible ]; then
    # Its client package (internal/clients) also reads Crossplane ProviderConfigs, and those
    # modules are not on the Go module proxy at the pinned versions: the package is built in
    # a module of its own, its file without the Kubernetes glue (plausiblerecord -trim; every
    # HTTP call is kept as written), its errors package at the version its go.sum pins.
    whole=$src
    src=$work/$name-client
    mkdir -p "$src/internal/clients"
    "$work/plausiblerecord" -trim "$whole/internal/clients/plausible.go" -out "$src/internal/clients/plausible.go"
    printf 'module github.com/rossigee/provider-plausible\n\ngo 1.22\n\nrequire github.com/pkg/errors v0.9.1\n' >"$src/go.mod"
    grep '^github.com/pkg/errors v0.9.1' "$whole/go.sum" >"$src/go.sum"
  fi
  mkdir -p "$src/cmd/record"
  cp "$root/tools/plausiblerecord/testdata/$name/main.go" "$src/cmd/record/main.go"
  (cd "$src" && $go build -mod=mod -o "$work/$name-driver" ./cmd/record)
  "$work/plausiblerecord" -target "$base" -client "$repo@$commit" -out "$out/$name.json" >"$work/$name.addr" &
  pids+=($!)
  for _ in $(seq 50); do [ -s "$work/$name.addr" ] && break; sleep 0.1; done
  proxy=$(head -n 1 "$work/$name.addr")
  # go-plausible takes the API's base (…/api/v1/), the provider the service's.
  api=$proxy
  [ "$name" = go-plausible ] && api=$proxy/api/v1/
  PLAUSIBLE_RECORD=$proxy PLAUSIBLE_BASE_URL=$api PLAUSIBLE_KEY=$key "$work/$name-driver"
done
if grep -aE '"status":5[0-9][0-9]|"level":"ERROR"' "$work/server.log"; then
  echo "plausible-clients: the server answered a 5xx or logged an error" >&2
  exit 1
fi
echo "plausible-clients: recorded $(ls "$out" | tr '\n' ' ')"
