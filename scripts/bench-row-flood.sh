#!/usr/bin/env bash
# `make bench-row-flood`: one stranger's visit whose row grows. One client address and one user
# agent send Plausible pageviews of a public website at BENCH_RATE (190/s, under
# EVENT_RATE_LIMIT), each with a 240-character path and the same 30 properties of 250 random
# letters, for BENCH_DURATION (10m). Meanwhile, every BENCH_PROBE_EVERY (10 s), another
# website gets one pageview from a visitor of its own, and the time until the API counts it is
# measured. Then SIGTERM, and what the drain said.
#
# Reported: the server's RSS (from /proc, a sample a second), the probes' time to be counted,
# the flushes' mean duration and failures a minute (from /metrics), the attacked visit's row
# in PostgreSQL (elements and bytes), the shutdown's last words, and the 202s against the
# pageviews stored.
#
# BENCH_REV=REV builds the server from that git revision (the generator is the working tree's):
# `BENCH_REV=main make bench-row-flood` measures main beside this tree.
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${BENCH_DURATION:-10m}
rate=${BENCH_RATE:-190}
probe_every=${BENCH_PROBE_EVERY:-10}
attacker=198.51.100.77

work=$(mktemp -d /tmp/analytics-row-flood.XXXXXX)
server_pid=''
sampler_pid=''
# say, stop_bench, free_port, wait_http, sample_rss, build_server, create_sites
. scripts/bench-lib.sh
cleanup() { stop_bench "$work" $sampler_pid $server_pid; }
trap cleanup EXIT
trap 'exit 130' INT TERM

build_server "$work"

say "== PostgreSQL (throw-away cluster) in $work/pg"
DATABASE_URL=$(scripts/postgres.sh start "$work/pg")
export DATABASE_URL
sql() { psql "$DATABASE_URL" -At -c "$1"; }
key=$("$server_bin" user create --email rows@localhost | tail -n 1)

port=$(free_port)
base="http://127.0.0.1:$port"
LISTEN_ADDR=127.0.0.1:$port TRUSTED_PROXIES=127.0.0.1/32 API_RATE_LIMIT=0 GEOIP_DB=${GEOIP_DB:-} \
  "$server_bin" serve 2>"$work/server.log" &
server_pid=$!
wait_http "$base/healthz"
create_sites "$base" "$key" rows 2 "$work"
attacked=${sites[0]}
other=${sites[1]}
other_id=$(sql "SELECT id FROM websites WHERE domain = '$other'")
sample_rss "$server_pid" "$work/rss" &
sampler_pid=$!

# metric NAME: its value in /metrics (0 when absent).
metric() { curl -s "$base/metrics" | awk -v n="$1" '$1 == n {v = $2} END {print v + 0}'; }

# probe N: one pageview of the other website from a visitor of its own; prints the seconds
# until its summary counts N pageviews (at most 120).
probe() {
  local n=$1 start now got
  start=$(date +%s.%N)
  curl -s -o /dev/null -H 'Content-Type: text/plain' -H "X-Forwarded-For: 203.0.113.$((n % 250 + 1))" \
    -A "Mozilla/5.0 probe/$n" -d "{\"n\":\"pageview\",\"u\":\"https://$other/probe-$n\",\"d\":\"$other\"}" "$base/api/event"
  while :; do
    got=$(curl -s -H "Authorization: Bearer $key" \
      "$base/api/v1/stats/$other_id/summary?from=$(date -u +%F)&to=$(date -u +%F)" | jq -r '.data.pageviews // 0')
    now=$(date +%s.%N)
    if [ "$got" -ge "$n" ]; then break; fi
    if awk -v a="$start" -v b="$now" 'BEGIN {exit !(b - a > 120)}'; then echo "120+"; return; fi
    sleep 0.1
  done
  awk -v a="$start" -v b="$now" 'BEGIN {printf "%.2f\n", b - a}'
}

say "== the attack: one visitor, $rate pageviews/s with 30 properties of 250 letters, for $duration"
bin/loadgen -url "$base/api/event" -duration "$duration" -concurrency 4 -rate "$rate" -pool 200 \
  -sites "$attacked" -big-props "$attacker" >"$work/attack.out" 2>"$work/attack.err" &
attack_pid=$!
t0=$(date +%s)
n=0
while kill -0 "$attack_pid" 2>/dev/null; do
  n=$((n + 1))
  latency=$(probe "$n")
  elapsed=$(( $(date +%s) - t0 ))
  echo "$elapsed $latency $(metric analytics_flush_duration_seconds_sum) $(metric analytics_flush_duration_seconds_count) $(metric analytics_flush_failures_total)" >>"$work/probes"
  say "   t=${elapsed}s: other website's hit counted after ${latency} s"
  sleep "$probe_every"
done
wait "$attack_pid" || true

row=$(sql "SELECT coalesce(cardinality(props), 0) || ' property elements, ' || cardinality(pages) || ' pages, ' ||
  length(hit_order) || ' hits in hit_order, ' || pg_column_size(v.*) || ' bytes stored (' ||
  coalesce(octet_length(array_to_string(props, '')), 0) + octet_length(array_to_string(pages, '')) || ' bytes of text)'
  FROM visit_rows v JOIN websites w ON w.id = v.website_id WHERE w.domain = '$attacked'
  ORDER BY pg_column_size(v.*) DESC LIMIT 1")
say "== SIGTERM"
kill -TERM "$server_pid"
wait "$server_pid" && server_status=0 || server_status=$?
server_pid=''
stored=$(sql "SELECT coalesce(sum(count), 0) FROM stats s JOIN websites w ON w.id = s.website_id WHERE s.name = 'pageview' AND w.domain = '$attacked'")

echo
echo "== results (server: ${BENCH_REV:-working tree}; $rate/s for $duration; load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
tail -n 1 "$work/attack.out" | jq -r '"attack: \(.requests) sent, \(.accepted) answered 202, other answers \(.other_statuses), errors \(.errors), late sends \(.late_sends)"'
echo "attacked website: $stored pageviews stored"
awk '{r = $1 / 1024; if (r > max) max = r; sum += r; n++} END {printf "server RSS: max %.0f MiB, mean %.0f MiB (%d samples)\n", max, sum / n, n}' "$work/rss"
awk '{m = int((NR - 1) / 60); r = $1 / 1024; if (r > max[m]) max[m] = r} END {printf "RSS max by minute (MiB):"; for (i = 0; i in max; i++) printf " %.0f", max[i]; print ""}' "$work/rss"
# A line a minute: the slowest probe, and the flushes of the minute (from the metrics sampled
# with each probe).
awk '{m = int($1 / 60); l = $2; gsub(/\+/, "", l); if (l > slow[m]) slow[m] = l; if (!(m in s0)) {s0[m] = ps; c0[m] = pc}
  s1[m] = $3; c1[m] = $4; f[m] = $5; ps = $3; pc = $4; last = m}
  END {for (m = 0; m <= last; m++) if (m in s1) {dc = c1[m] - c0[m]; mean = "-"; if (dc > 0) mean = sprintf("%.3f", (s1[m] - s0[m]) / dc)
    printf "minute %d: slowest probe counted after %.2f s; %d flushes, mean %s s; flush failures so far %d\n", m + 1, slow[m], dc, mean, f[m]}}' "$work/probes"
echo "attacked row: ${row:-none}"
echo "shutdown: exit $server_status; last log lines:"
grep -E 'drain|stopped|flush failed|shutdown' "$work/server.log" | tail -n 3 | cut -c1-300
