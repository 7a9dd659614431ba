#!/usr/bin/env bash
# `make bench-flood`: POST /api/event under a flood. One client address sends, as fast as
# BENCH_FLOOD_CONCURRENCY connections go, visits whose user agent was never seen before (each
# one misses every cache and costs the server a full classification), while ordinary visitors
# (the generator's mix, from random addresses) send at a fixed BENCH_VISITOR_RATE.
#
# Two phases of BENCH_DURATION: the visitors alone, then the visitors and the flood. Reported:
# the visitors' latency (open loop, from each request's scheduled time) and their non-202
# answers, the flood's accepted share, and the server's CPU (cores busy on average).
#
# BENCH_REV=REV builds the server from that git revision instead of the working tree (the
# generator is always the working tree's), so that before and after run on the same machine
# with the same generator: `BENCH_REV=a9f98e2 make bench-flood` is main before the limit.
#
# Environment: BENCH_DURATION (20s), BENCH_VISITOR_RATE (2000), BENCH_VISITOR_CONCURRENCY (32),
# BENCH_FLOOD_CONCURRENCY (8), BENCH_SITES (5), BENCH_REV; GEOIP_DB, EVENT_RATE_LIMIT... reach
# the server as set.
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${BENCH_DURATION:-20s}
visitor_rate=${BENCH_VISITOR_RATE:-2000}
visitor_concurrency=${BENCH_VISITOR_CONCURRENCY:-32}
flood_concurrency=${BENCH_FLOOD_CONCURRENCY:-8}
nsites=${BENCH_SITES:-5}
flood_ip=198.51.100.66

work=$(mktemp -d /tmp/analytics-flood.XXXXXX)
server_pid=''
# say, stop_bench, free_port, wait_http, busy_ticks, cpu_ticks, ticks_to_s, build_server, create_sites
. scripts/bench-lib.sh
cleanup() { stop_bench "$work" $server_pid; }
trap cleanup EXIT
trap 'exit 130' INT TERM

build_server "$work"

say "== PostgreSQL (throw-away cluster) in $work/pg"
DATABASE_URL=$(scripts/postgres.sh start "$work/pg")
export DATABASE_URL
key=$("$server_bin" user create --email flood@localhost | tail -n 1)

port=$(free_port)
base="http://127.0.0.1:$port"
LISTEN_ADDR=127.0.0.1:$port TRUSTED_PROXIES=127.0.0.1/32 API_RATE_LIMIT=0 GEOIP_DB=${GEOIP_DB:-} \
  "$server_bin" serve 2>"$work/server.log" &
server_pid=$!
wait_http "$base/healthz"
create_sites "$base" "$key" flood "$nsites" "$work"

# phase NAME FLOOD(0|1): the visitors, and the flood alongside when asked; the server's CPU
# seconds over the phase go to $work/NAME.cpu.
phase() {
  local name=$1 flood=$2 server0 busy0 flood_pid=''
  server0=$(cpu_ticks "$server_pid")
  busy0=$(busy_ticks)
  if [ "$flood" = 1 ]; then
    bin/loadgen -url "$base/api/event" -duration "$duration" -concurrency "$flood_concurrency" \
      -sites "${sites[0]}" -flood "$flood_ip" >"$work/$name-flood.out" 2>/dev/null &
    flood_pid=$!
  fi
  bin/loadgen -url "$base/api/event" -duration "$duration" -concurrency "$visitor_concurrency" \
    -rate "$visitor_rate" -sites "$site_list" >"$work/$name-visitors.out" 2>/dev/null
  if [ -n "$flood_pid" ]; then wait "$flood_pid"; fi
  ticks_to_s $(( $(cpu_ticks "$server_pid") - server0 )) >"$work/$name.cpu"
  ticks_to_s $(( $(busy_ticks) - busy0 )) >"$work/$name.busy"
}

say "== warming up: 5 s of visitors (caches, GeoIP pages)"
bin/loadgen -url "$base/api/event" -duration 5s -concurrency "$visitor_concurrency" \
  -rate "$visitor_rate" -sites "$site_list" -seed 2 >/dev/null 2>&1
say "== phase 1: visitors alone at $visitor_rate/s, $duration"
phase calm 0
say "== phase 2: visitors at $visitor_rate/s and a flood from one address ($flood_concurrency connections), $duration"
phase flood 1

visitors() { # NAME: the visitors' figures of a phase
  tail -n 1 "$work/$1-visitors.out" | jq -r --arg cpu "$(cat "$work/$1.cpu")" --arg busy "$(cat "$work/$1.busy")" '
    "      visitors: \(.accepted) of \(.requests) accepted, other answers \(.other_statuses + .errors), late sends \(.late_sends)",
    "      visitors latency: p50 \(.p50_ms) ms, p90 \(.p90_ms) ms, p99 \(.p99_ms) ms, p99.9 \(.p999_ms) ms, max \(.max_ms) ms",
    "      server CPU: \($cpu) s in \(.seconds) s = \((($cpu | tonumber) / .seconds * 100) | round)% of a core; machine busy \($busy) s"'
}
echo
echo "== results (server: ${BENCH_REV:-working tree}; EVENT_RATE_LIMIT=${EVENT_RATE_LIMIT:-default})"
echo "phase 1, visitors alone at $visitor_rate/s:"
visitors calm
echo "phase 2, visitors at $visitor_rate/s plus the flood:"
visitors flood
tail -n 1 "$work/flood-flood.out" | jq -r '
  "      flood: \(.requests) sent (\(.requests_per_s)/s), \(.accepted) accepted = \((.accepted / ([.requests, 1] | max) * 1000 | round) / 10)%, answers \(.other_statuses), errors \(.errors)"'
