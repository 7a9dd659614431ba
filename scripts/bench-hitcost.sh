#!/usr/bin/env bash
# `make bench-hitcost`: the CPU a hit costs the collector, with everything on, beside what a
# do-nothing Go HTTP server (`loadgen -noop`, the same http.Server settings) spends per request
# on the same traffic from the same generator. The ratio do-nothing / collector is the share of
# the collector's CPU that is net/http's own work: 1.0 would be a free collector.
#
# Two kinds of traffic, open loop (a fixed rate, so both servers get the same requests):
#   visitors: BENCH_VISITORS (80000) visitors sending 3-4 hits each over BENCH_DURATION (20s),
#             at BENCH_VISITORS_RATE (14000/s); target ratio >= BENCH_MIN_RATIO_VISITORS (0.60)
#   new:      every hit a visitor never seen before, at BENCH_NEW_RATE (10000/s): each opens a
#             visit and writes a visit row; target ratio >= BENCH_MIN_RATIO_NEW (0.33)
# Then the service stops (SIGTERM writes what it holds) and nothing may be lost: the stored
# pageviews and events equal the 202 answers. A 503 is back-pressure (the database could not
# take the rows as fast); they are counted and shown.
#
# The server's CPU is utime + stime from /proc over each phase; CPU per 202 is that over the
# 202 answers (the do-nothing server's over its requests). A busy neighbour skews both: the
# machine's other CPU is printed beside them.
#
# GeoIP is on, as shipped (the GeoLite2-City that `make run` fetches into .data/, or GEOIP_DB).
# BENCH_REV=REV builds the service from that git revision (the generator is always this
# tree's), for before/after on one machine. BENCH_PROFILE=DIR writes the service's CPU profile
# of each phase (DIR/visitors.pprof, DIR/new.pprof) and its allocations so far after each
# (DIR/visitors-allocs.pprof, DIR/new-allocs.pprof). GEOIP_DB, FLUSH_INTERVAL... reach the
# server as set. BENCH_SHIELDS=1 gives every website the benchmarks' shields (50 blocked
# countries, 50 page patterns, 20 allowed hostnames, `loadgen -shields`), which the traffic
# passes: the hits a shield still refuses (an address located in a blocked territory) are
# counted and left out of what must be stored. Exit status 1 when a target is missed.
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${BENCH_DURATION:-20s}
visitors=${BENCH_VISITORS:-80000}
visitors_rate=${BENCH_VISITORS_RATE:-14000}
new_rate=${BENCH_NEW_RATE:-10000}
min_visitors=${BENCH_MIN_RATIO_VISITORS:-0.60}
min_new=${BENCH_MIN_RATIO_NEW:-0.33}
concurrency=${BENCH_CONCURRENCY:-64}
nsites=${BENCH_SITES:-20}

work=$(mktemp -d /tmp/analytics-hitcost.XXXXXX)
server_pid='' noop_pid=''
# say, stop_bench, free_port, wait_http, busy_ticks, cpu_ticks, hz, build_server, create_sites
. scripts/bench-lib.sh
cleanup() { stop_bench "$work" $noop_pid $server_pid; }
trap cleanup EXIT
trap 'exit 130' INT TERM

build_server "$work"

# GeoIP on, as shipped: the database `make run` uses (scripts/geoip.sh), or GEOIP_DB.
. scripts/geoip.sh
ensure_geoip >&2
[ -n "${GEOIP_DB:-}" ] || { say "GeoIP is on as shipped, and no database could be had: set GEOIP_DB"; exit 1; }

say "== PostgreSQL (throw-away cluster, durability on) in $work/pg"
DATABASE_URL=$(scripts/postgres.sh start "$work/pg")
export DATABASE_URL
key=$("$server_bin" user create --email hitcost@localhost | tail -n 1)

port=$(free_port)
base="http://127.0.0.1:$port"
pprof_addr=''
if [ -n "${BENCH_PROFILE:-}" ]; then
  mkdir -p "$BENCH_PROFILE"
  pprof_addr=127.0.0.1:$(free_port)
fi
LISTEN_ADDR=127.0.0.1:$port TRUSTED_PROXIES=127.0.0.1/32 API_RATE_LIMIT=0 GEOIP_DB=$GEOIP_DB \
  PPROF_ADDR=$pprof_addr "$server_bin" serve 2>"$work/server.log" &
server_pid=$!
wait_http "$base/healthz"
create_sites "$base" "$key" hitcost "$nsites" "$work"

# run NAME PID URL RATE LOADGEN-ARGS...: one open-loop run against the server PID; its last
# line (JSON) with the server's and the machine's CPU seconds goes to $work/NAME.json.
run() {
  local name=$1 pid=$2 url=$3 rate=$4 server0 busy0 profiler=''
  shift 4
  server0=$(cpu_ticks "$pid")
  busy0=$(busy_ticks)
  if [ -n "$pprof_addr" ] && [ "$pid" = "$server_pid" ]; then
    local seconds
    seconds=$(awk -v d="$duration" 'BEGIN {n = d + 0; if (d ~ /m$/) n *= 60; print (n > 6 ? n - 4 : 2)}')
    (sleep 2 && curl -s -o "$BENCH_PROFILE/$name.pprof" "http://$pprof_addr/debug/pprof/profile?seconds=$seconds") &
    profiler=$!
  fi
  bin/loadgen -url "$url" -duration "$duration" -concurrency "$concurrency" -rate "$rate" \
    -sites "$site_list" "$@" >"$work/$name.out" 2>/dev/null
  if [ -n "$profiler" ]; then
    wait "$profiler" || true
    # Allocations since the start: the run's are the difference with the one before
    # (go tool pprof -sample_index=alloc_space -base DIR/visitors-allocs.pprof DIR/new-allocs.pprof).
    curl -s -o "$BENCH_PROFILE/$name-allocs.pprof" "http://$pprof_addr/debug/pprof/allocs"
  fi
  # Ticks over $hz (ticks_to_s rounds to 0.1 s, too coarse for a ratio).
  tail -n 1 "$work/$name.out" | jq -c --argjson server $(( $(cpu_ticks "$pid") - server0 )) \
    --argjson busy $(( $(busy_ticks) - busy0 )) --argjson hz "$hz" \
    '. + {server_cpu_s: ($server / $hz), machine_cpu_s: ($busy / $hz)}' >"$work/$name.json"
}

visitor_args=(-pool "$visitors" -seed 1)
new_args=(-visitors -seed 2)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
say "== warming up: 5 s (caches, GeoIP pages)"
bin/loadgen -url "$base/api/event" -duration 5s -concurrency "$concurrency" -rate 2000 \
  -sites "$site_list" -seed 9 -pool 5000 2>/dev/null | tail -n 1 >"$work/warm.json"
say "== service, visitors: $visitors visitors at $visitors_rate/s for $duration"
run visitors "$server_pid" "$base/api/event" "$visitors_rate" "${visitor_args[@]}"
say "== service, a new visitor every hit, at $new_rate/s for $duration"
run new "$server_pid" "$base/api/event" "$new_rate" "${new_args[@]}"
# The hits the shields refused (answered 202, stored nowhere), from the service's metrics.
shielded=$(curl -s "$base/metrics" | awk '/^analytics_events_ignored_total\{reason="(blocked_country|blocked_page|hostname_not_allowed)"\}/ {s += $2} END {print s + 0}')
kill -TERM "$server_pid"
server_rc=0
wait "$server_pid" || server_rc=$?
server_pid=''
[ "$server_rc" = 0 ] || { say "analytics serve exited with status $server_rc:"; tail -n 20 "$work/server.log" >&2; }
stored=$(psql "$DATABASE_URL" -At -c "SELECT coalesce(sum(count), 0) FROM stats WHERE name IN ('pageview', 'event')")
accepted=0
for name in warm visitors new; do accepted=$((accepted + $(jq -r .accepted "$work/$name.json"))); done
accepted=$((accepted - shielded))

noop_port=$(free_port)
# The do-nothing server stops by itself well after the runs even if this script is killed.
bin/loadgen -noop "127.0.0.1:$noop_port" -duration 10m >"$work/noop.log" 2>&1 &
noop_pid=$!
wait_http "http://127.0.0.1:$noop_port/"
say "== do-nothing server, the same two runs"
run noop-visitors "$noop_pid" "http://127.0.0.1:$noop_port/api/event" "$visitors_rate" "${visitor_args[@]}"
run noop-new "$noop_pid" "http://127.0.0.1:$noop_port/api/event" "$new_rate" "${new_args[@]}"
kill -TERM "$noop_pid"; wait "$noop_pid" || true; noop_pid=''

failed=0
# compare NAME MIN: one traffic's figures and its ratio against MIN.
compare() {
  local line ok
  line=$(jq -nr --slurpfile s "$work/$1.json" --slurpfile n "$work/noop-$1.json" --argjson min "$2" '
    ($s[0].server_cpu_s * 1e6 / ([$s[0].accepted, 1] | max)) as $svc |
    ($n[0].server_cpu_s * 1e6 / ([$n[0].requests, 1] | max)) as $noop |
    "\(if $noop / $svc >= $min then "PASS" else "FAIL" end) \(($noop / $svc * 100 | round) / 100)|" +
    "  service:    \($s[0].accepted) of \($s[0].requests) accepted, 503 \($s[0].other_statuses["503"] // 0), other answers and errors \(([$s[0].other_statuses[]] | add // 0) - ($s[0].other_statuses["503"] // 0) + ([$s[0].errors[]] | add // 0)), late sends \($s[0].late_sends); CPU \($s[0].server_cpu_s) s = \(($svc * 10 | round) / 10) us per 202; machine busy \($s[0].machine_cpu_s) s|" +
    "  do-nothing: \($n[0].requests) requests; CPU \($n[0].server_cpu_s) s = \(($noop * 10 | round) / 10) us per request; machine busy \($n[0].machine_cpu_s) s|" +
    "  ratio do-nothing / service = \(($noop / $svc * 100 | round) / 100) (target >= \($min))"')
  ok=${line%% *}
  [ "$ok" = PASS ] || failed=1
  echo "$ok  $1 traffic:"
  tr '|' '\n' <<<"${line#*|}"
}

echo
shields_note=''
[ "${BENCH_SHIELDS:-0}" = 1 ] && shields_note=", shields on every website: they refused $shielded hits"
echo "== results (service: ${BENCH_REV:-working tree}, $(nproc) cores, load before the runs: $load_before$shields_note)"
compare visitors "$min_visitors"
compare new "$min_new"
if [ "$stored" = "$accepted" ] && [ "$server_rc" = 0 ]; then
  echo "PASS  nothing lost: $stored pageviews and events stored = $accepted answers 202 (the warm-up's included, less what the shields refused)"
else
  echo "FAIL  nothing lost: $stored pageviews and events stored, $accepted answers 202, server exit $server_rc"
  failed=1
fi
exit "$failed"
