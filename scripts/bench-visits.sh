#!/usr/bin/env bash
# `make bench-visits`: the memory of open visits. Sends BENCH_VISITORS (1,000,000) hits, each
# from a client address never seen before (loadgen -visitors: a new visitor, whose visit the
# server holds in memory until VISIT_TIMEOUT, 30m by default), then reads the server's open
# visits (analytics_open_visits) and its RSS (VmRSS, VmHWM). Checks that every visit is held
# and that VmHWM stays within BENCH_MAX_RSS_MB (400).
set -euo pipefail
cd "$(dirname "$0")/.."

visitors=${BENCH_VISITORS:-1000000}
rate=${BENCH_RATE:-12000}
max_rss_mb=${BENCH_MAX_RSS_MB:-400}
work=$(mktemp -d /tmp/analytics-bench-visits.XXXXXX)
server_pid=''
. scripts/bench-lib.sh
cleanup() { stop_bench "$work" $server_pid; }
trap cleanup EXIT
trap 'exit 130' INT TERM

go build -o bin/analytics ./cmd/analytics
go build -o bin/loadgen ./tools/loadgen
DATABASE_URL=$(scripts/postgres.sh start "$work/pg")
export DATABASE_URL
key=$(bin/analytics user create --email bench@localhost | tail -n 1)
port=$(free_port)
base="http://127.0.0.1:$port"
LISTEN_ADDR=127.0.0.1:$port TRUSTED_PROXIES=127.0.0.1/32 EVENT_RATE_LIMIT=0 MAX_OPEN_VISITS=$visitors \
  bin/analytics serve 2>"$work/server.log" &
server_pid=$!
wait_http "$base/healthz"
curl -s -o /dev/null -H "Authorization: Bearer $key" -d domain=visits.example.com -d exclude_bots=0 "$base/api/v1/websites"

seconds=$(( (visitors + rate - 1) / rate ))
say "== $visitors new visitors at $rate/s (${seconds}s)"
bin/loadgen -url "$base/api/event" -visitors -rate "$rate" -concurrency 32 -duration "${seconds}s" \
  -sites visits.example.com -pool 1000 >"$work/load.out"
sleep 2 # the last flush
open=$(curl -s "$base/metrics" | awk '/^analytics_open_visits / {print $2}')
accepted=$(tail -n 1 "$work/load.out" | jq -r .accepted)
rss=$(awk '/^VmRSS:/ {print int($2 / 1024)}' "/proc/$server_pid/status")
hwm=$(awk '/^VmHWM:/ {print int($2 / 1024)}' "/proc/$server_pid/status")
echo "accepted $accepted hits; open visits $open; VmRSS $rss MB, VmHWM $hwm MB (target <= $max_rss_mb MB)"
if awk -v o="$open" -v a="$accepted" 'BEGIN {exit !(o + 0 >= a * 0.99)}' && [ "$hwm" -le "$max_rss_mb" ]; then
  echo "PASS"
else
  echo "FAIL"; exit 1
fi
