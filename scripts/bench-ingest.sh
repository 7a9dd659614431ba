#!/usr/bin/env bash
# `make bench-ingest`: the tracker endpoint under realistic mixed traffic, on this machine, with
# the generator, the service and PostgreSQL (durability on) sharing its cores.
#
# It starts a throw-away cluster, builds bin/analytics and bin/loadgen, creates a user and
# BENCH_SITES websites through the API (exclude_bots=0 and no excluded IPs, so that every 202 is
# a counted hit), runs `analytics serve` behind a pretend reverse proxy (TRUSTED_PROXIES=
# 127.0.0.1/32; the generator sends X-Forwarded-For) and samples its RSS every second while
# bin/loadgen drives it, in two phases of BENCH_DURATION each:
#   1. closed loop, BENCH_CONCURRENCY connections, as fast as answers come: the sustained
#      throughput, and its latency;
#   2. open loop at BENCH_OPEN_RATE requests/s (default: the throughput target): the latency at
#      that rate measured from each request's scheduled time, so that a server that stalls
#      cannot hide it by slowing the generator down (a closed loop's "coordinated omission").
# Then it stops the server with SIGTERM (it writes every counter still in memory) and checks:
#   accepted events/s >= BENCH_MIN_RATE        p99 <= BENCH_MAX_P99_MS (each phase)
#   peak RSS <= BENCH_MAX_RSS_MB               stats total (pageview + event) == 202 answers
# Last, the phase-1 generator against `loadgen -noop` (a handler that does nothing, same
# http.Server settings) gives the ceiling of this machine and the ratio service / ceiling.
#
# Environment: BENCH_DURATION (60s), BENCH_CONCURRENCY (8), BENCH_OPEN_RATE (= BENCH_MIN_RATE;
# 0 skips phase 2), BENCH_OPEN_CONCURRENCY (64), BENCH_SITES (20), BENCH_SEED (1), BENCH_POOL
# (20000: distinct requests, each its own client address, so one visitor each; at 30,000/s
# for 20 s a visitor sends about 30 hits, where 200000 gives the 2-3 of a real visit),
# BENCH_CEILING (1; 0 skips it), BENCH_CEILING_BUSY (unset; e.g. 8us: a second ceiling whose
# handler keeps a core busy that long a request, the service's cost over net/http's: the tail
# latency any handler of that cost gets here), BENCH_MIN_RATE (15000), BENCH_MAX_P99_MS (5),
# BENCH_MAX_RSS_MB (200); GEOIP_DB, FLUSH_INTERVAL, GOGC... reach the server as set.
# BENCH_PROFILE=DIR writes the server's CPU profile of phase 1 (cpu.pprof) and its allocations
# (allocs.pprof) there, through PPROF_ADDR: `go tool pprof -top DIR/cpu.pprof`.
# Exit status 1 when a target is missed.
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${BENCH_DURATION:-60s}
concurrency=${BENCH_CONCURRENCY:-8}
nsites=${BENCH_SITES:-20}
seed=${BENCH_SEED:-1}
pool=${BENCH_POOL:-20000}
min_rate=${BENCH_MIN_RATE:-15000}
max_p99=${BENCH_MAX_P99_MS:-5}
max_rss_mb=${BENCH_MAX_RSS_MB:-200}
open_rate=${BENCH_OPEN_RATE:-$min_rate}
open_concurrency=${BENCH_OPEN_CONCURRENCY:-64}

work=$(mktemp -d /tmp/analytics-bench.XXXXXX)
server_pid='' noop_pid='' sampler_pid=''
# say, stop_bench, free_port, wait_http, sample_rss, busy_ticks, cpu_ticks, ticks_to_s
. scripts/bench-lib.sh
cleanup() { stop_bench "$work" $sampler_pid $noop_pid $server_pid; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# load NAME PID URL CONCURRENCY RATE: one loadgen run against the server PID, its output kept as $work/NAME.out, and where
# the cores went meanwhile (what is neither the server nor the generator is PostgreSQL, the
# kernel's softirq work and anything else running: a busy neighbour skews the figures).
load() {
  local name=$1 pid=$2 url=$3 conc=$4 rate=$5 busy0 server0
  busy0=$(busy_ticks)
  server0=$(cpu_ticks "$pid")
  bin/loadgen -url "$url" -duration "$duration" -concurrency "$conc" -rate "$rate" \
    -sites "$site_list" -seed "$seed" -pool "$pool" | tee "$work/$name.out" >&2
  local json busy server
  json=$(tail -n 1 "$work/$name.out")
  busy=$(( $(busy_ticks) - busy0 ))
  server=$(( $(cpu_ticks "$pid") - server0 ))
  jq -c --arg busy "$(ticks_to_s "$busy")" --arg server "$(ticks_to_s "$server")" \
    --arg cores "$(nproc)" '. + {machine_cpu_s: ($busy | tonumber), server_cpu_s: ($server | tonumber), cores: ($cores | tonumber)}' \
    <<<"$json" >"$work/$name.json"
}

# report NAME: the figures of one phase.
report() {
  jq -r '
    "      \(.accepted_per_s) accepted/s (whole seconds: slowest \(.accepted_per_s_min_1s), median \(.accepted_per_s_median_1s)); other answers \(.other_statuses + .errors)",
    "      latency p50 \(.p50_ms) ms, p90 \(.p90_ms) ms, p99 \(.p99_ms) ms, p99.9 \(.p999_ms) ms, max \(.max_ms) ms",
    "      CPU per 202: server \((.server_cpu_s * 1e7 / ([.accepted, 1] | max) | round) / 10) us, generator \((.generator_cpu_s * 1e7 / ([.requests, 1] | max) | round) / 10) us",
    "      CPU seconds: machine \(.machine_cpu_s) of \((.seconds * .cores * 10 | round) / 10), server \(.server_cpu_s), generator \(.generator_cpu_s), the rest (PostgreSQL, others) \([((.machine_cpu_s - .server_cpu_s - .generator_cpu_s) * 10 | round) / 10, 0] | max)"
  ' "$work/$1.json"
}

failed=0
verdict() { # NAME OK(0|1) TEXT
  if [ "$2" = 1 ]; then echo "PASS  $1: $3"; else echo "FAIL  $1: $3"; failed=1; fi
}
is() { jq -r --argjson x "$2" "if $1 then 1 else 0 end" "$work/$3.json"; } # EXPR X NAME

say "== building"
go build -o bin/analytics ./cmd/analytics
go build -o bin/loadgen ./tools/loadgen

say "== PostgreSQL (throw-away cluster, durability on) in $work/pg"
DATABASE_URL=$(scripts/postgres.sh start "$work/pg")
export DATABASE_URL
key=$(bin/analytics user create --email bench@localhost | tail -n 1)

port=$(free_port)
base="http://127.0.0.1:$port"
say "== analytics serve on 127.0.0.1:$port"
pprof_addr=''
if [ -n "${BENCH_PROFILE:-}" ]; then
  mkdir -p "$BENCH_PROFILE"
  pprof_addr=127.0.0.1:$(free_port)
fi
LISTEN_ADDR=127.0.0.1:$port TRUSTED_PROXIES=127.0.0.1/32 API_RATE_LIMIT=0 GEOIP_DB=${GEOIP_DB:-} \
  PPROF_ADDR=$pprof_addr bin/analytics serve 2>"$work/server.log" &
server_pid=$!
wait_http "$base/healthz"

sites=()
for i in $(seq 1 "$nsites"); do
  domain="bench$i.example.com"
  status=$(curl -s -o "$work/site.json" -w '%{http_code}' -H "Authorization: Bearer $key" \
    --data-urlencode "domain=$domain" -d exclude_bots=0 "$base/api/v1/websites")
  if [ "$status" != 201 ]; then
    say "creating website $domain answered $status: $(cat "$work/site.json")"; exit 1
  fi
  sites+=("$domain")
done
site_list=$(IFS=,; echo "${sites[*]}")

sample_rss "$server_pid" "$work/rss" &
sampler_pid=$!
say "== phase 1: closed loop, $concurrency connections, $duration, $nsites sites"
profiler_pid=''
if [ -n "$pprof_addr" ]; then
  # The middle of the phase: from 2 s in to 2 s before its end.
  seconds=$(awk -v d="$duration" 'BEGIN {n = d + 0; if (d ~ /m$/) n *= 60; print (n > 6 ? n - 4 : 2)}')
  (sleep 2 && curl -s -o "$BENCH_PROFILE/cpu.pprof" "http://$pprof_addr/debug/pprof/profile?seconds=$seconds") &
  profiler_pid=$!
fi
load closed "$server_pid" "$base/api/event" "$concurrency" 0
if [ -n "$pprof_addr" ]; then
  wait "$profiler_pid" || true
  curl -s -o "$BENCH_PROFILE/allocs.pprof" "http://$pprof_addr/debug/pprof/allocs"
  say "profiles: $BENCH_PROFILE/cpu.pprof, $BENCH_PROFILE/allocs.pprof"
fi
phases=(closed)
if [ "$open_rate" != 0 ]; then
  say "== phase 2: open loop at $open_rate requests/s, $open_concurrency connections, $duration"
  load open "$server_pid" "$base/api/event" "$open_concurrency" "$open_rate"
  phases+=(open)
fi

# The flushes of both phases, from the server's metrics: how long writing the counters took.
flushes=$(curl -s "$base/metrics" | awk '
  /^analytics_flush_duration_seconds_sum / {sum = $2}
  /^analytics_flush_duration_seconds_count / {n = $2}
  /^analytics_flush_rows_total / {rows = $2}
  /^analytics_values_over_cap_total / {over = $2}
  END {if (n > 0) printf "%d flushes of %d counters on average, %.1f ms each on average; %d counts past MAX_VALUES_PER_DAY", n, rows / n, sum / n * 1000, over}')
# The high-water mark just before the stop, then the drain's last samples.
hwm_before_stop=$(awk '/^VmHWM:/ {print $2}' "/proc/$server_pid/status")
kill -TERM "$server_pid"
server_rc=0
wait "$server_pid" || server_rc=$?
server_pid=''
wait "$sampler_pid" 2>/dev/null || true
sampler_pid=''
if [ "$server_rc" != 0 ]; then
  say "analytics serve exited with status $server_rc:"; tail -n 20 "$work/server.log" >&2
fi

peak_rss_kb=$(awk '$1 > m {m = $1} END {print m + 0}' "$work/rss")
hwm_kb=$(awk '$2 > m {m = $2} END {print m + 0}' "$work/rss")
hwm_kb=$((hwm_kb > hwm_before_stop ? hwm_kb : hwm_before_stop))
anon_kb=$(awk '$3 > m {m = $3} END {print m + 0}' "$work/rss")
file_kb=$(awk '$4 > m {m = $4} END {print m + 0}' "$work/rss")
sql() { psql "$DATABASE_URL" -At -c "$1"; }
db_total=$(sql "SELECT coalesce(sum(count), 0) FROM stats WHERE name IN ('pageview', 'event')")
db_pageviews=$(sql "SELECT coalesce(sum(count), 0) FROM stats WHERE name = 'pageview'")
db_events=$(sql "SELECT coalesce(sum(count), 0) FROM stats WHERE name = 'event'")
db_rows=$(sql "SELECT count(*) FROM stats")
accepted=0
for phase in "${phases[@]}"; do accepted=$((accepted + $(jq -r .accepted "$work/$phase.json"))); done

echo
echo "== results"
echo "flushes: ${flushes:-none}"
echo "phase 1, closed loop, $concurrency connections:"
report closed
if [ "$open_rate" != 0 ]; then
  echo "phase 2, open loop at $open_rate/s, $open_concurrency connections, latency from each request's scheduled time:"
  report open
fi
verdict "throughput" "$(is '.accepted_per_s >= $x' "$min_rate" closed)" \
  "$(jq -r .accepted_per_s "$work/closed.json") accepted/s sustained over $duration in closed loop (target >= $min_rate)"
verdict "latency (closed loop)" "$(is '.p99_ms <= $x' "$max_p99" closed)" \
  "p99 $(jq -r .p99_ms "$work/closed.json") ms at $(jq -r .accepted_per_s "$work/closed.json") req/s (target <= $max_p99 ms)"
if [ "$open_rate" != 0 ]; then
  verdict "latency (open loop)" "$(is '.p99_ms <= $x' "$max_p99" open)" \
    "p99 $(jq -r .p99_ms "$work/open.json") ms at $(jq -r .accepted_per_s "$work/open.json") req/s (target <= $max_p99 ms)"
fi
verdict "memory" "$([ "$peak_rss_kb" -le $((max_rss_mb * 1024)) ] && [ "$hwm_kb" -le $((max_rss_mb * 1024)) ] && echo 1 || echo 0)" \
  "peak VmRSS $((peak_rss_kb / 1024)) MB sampled each second, VmHWM $((hwm_kb / 1024)) MB (target <= $max_rss_mb MB); peak RssAnon $((anon_kb / 1024)) MB, RssFile $((file_kb / 1024)) MB"
verdict "totals" "$([ "$db_total" = "$accepted" ] && [ "$server_rc" = 0 ] && echo 1 || echo 0)" \
  "stats pageview+event = $db_total ($db_pageviews pageviews, $db_events events, $db_rows rows), 202 answers = $accepted, server exit $server_rc"

if [ "${BENCH_CEILING:-1}" != 0 ]; then
  noop_port=$(free_port)
  # The ceiling server stops by itself well after the run even if this script is killed.
  bin/loadgen -noop "127.0.0.1:$noop_port" -duration 10m >"$work/noop.log" 2>&1 &
  noop_pid=$!
  wait_http "http://127.0.0.1:$noop_port/"
  say "== ceiling: phase 1 against the do-nothing handler"
  load ceiling "$noop_pid" "http://127.0.0.1:$noop_port/api/event" "$concurrency" 0
  kill -TERM "$noop_pid"; wait "$noop_pid" || true; noop_pid=''
  echo
  echo "== ceiling (same generator, $concurrency connections, handler that does nothing)"
  report ceiling
  echo "ratio        $(jq -nr --slurpfile s "$work/closed.json" --slurpfile c "$work/ceiling.json" \
    '"service \($s[0].accepted_per_s)/s / ceiling \($c[0].accepted_per_s)/s = \(($s[0].accepted_per_s / $c[0].accepted_per_s * 1000 | round) / 10)%"')"
  if [ -n "${BENCH_CEILING_BUSY:-}" ]; then
    bin/loadgen -noop "127.0.0.1:$noop_port" -noop-busy "$BENCH_CEILING_BUSY" -duration 10m >"$work/noop.log" 2>&1 &
    noop_pid=$!
    wait_http "http://127.0.0.1:$noop_port/"
    say "== ceiling with a handler busy $BENCH_CEILING_BUSY a request"
    load busy "$noop_pid" "http://127.0.0.1:$noop_port/api/event" "$concurrency" 0
    kill -TERM "$noop_pid"; wait "$noop_pid" || true; noop_pid=''
    echo
    echo "== ceiling with a handler busy $BENCH_CEILING_BUSY a request (same generator, $concurrency connections)"
    report busy
  fi
fi
exit "$failed"
