# Shell helpers of the benchmarks (scripts/bench-ingest.sh, bench-flood.sh, bench-hitcost.sh); sourced.

say() { printf '%s\n' "$*" >&2; }

# stop_bench WORK PID...: what a benchmark leaves at exit: the processes it started (by their
# ids only, never by name), its PostgreSQL cluster in WORK/pg, and WORK.
stop_bench() {
  local work=$1 pid
  shift
  for pid in "$@"; do kill "$pid" 2>/dev/null || true; done
  for pid in "$@"; do wait "$pid" 2>/dev/null || true; done
  scripts/postgres.sh stop "$work/pg"
  rm -rf "$work"
}

# free_port prints a loopback TCP port nobody listens on.
free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"; return
    fi
  done
  say "no free port found"; return 1
}

# wait_http URL: until it answers at all (any status), for at most 30 s.
wait_http() {
  for _ in $(seq 1 300); do
    if curl -s -o /dev/null --max-time 1 "$1"; then return 0; fi
    sleep 0.1
  done
  say "nothing answers at $1"; return 1
}

# sample_rss PID FILE: every second, the process's VmRSS, VmHWM, RssAnon and RssFile (kB)
# appended to FILE, until the process is gone. Bounded: the server exits at the end of the run
# or at cleanup. RssFile is mostly the memory-mapped GeoIP database when GEOIP_DB is set.
sample_rss() {
  local pid=$1 out=$2 line
  while [ -r "/proc/$pid/status" ]; do
    line=$(awk '/^VmRSS:/ {r = $2} /^VmHWM:/ {h = $2} /^RssAnon:/ {a = $2} /^RssFile:/ {f = $2}
      END {if (r != "") print r, h, a, f}' "/proc/$pid/status" 2>/dev/null) || break
    [ -n "$line" ] && echo "$line" >>"$out"
    sleep 1
  done
}

# busy_ticks: CPU clock ticks spent on anything but idle and iowait, machine-wide, so far.
busy_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }

# cpu_ticks PID: utime + stime of a process (fields 14 and 15 of /proc/PID/stat).
cpu_ticks() { awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$1/stat"; }

hz=$(getconf CLK_TCK)
ticks_to_s() { awk -v t="$1" -v hz="$hz" 'BEGIN {printf "%.1f", t / hz}'; }

# build_server DIR: builds bin/loadgen and the service, from the git revision BENCH_REV when
# set (in DIR/src; the generator is always the working tree's), and sets server_bin to it.
build_server() {
  say "== building"
  go build -o bin/loadgen ./tools/loadgen
  server_bin=bin/analytics
  if [ -n "${BENCH_REV:-}" ]; then
    mkdir -p "$1/src"
    git archive "$BENCH_REV" | tar -x -C "$1/src"
    (cd "$1/src" && go build -o "$1/analytics" ./cmd/analytics)
    server_bin=$1/analytics
    say "service built from $BENCH_REV ($(git rev-parse --short "$BENCH_REV"))"
  else
    go build -o bin/analytics ./cmd/analytics
  fi
}

# create_sites BASE KEY PREFIX N WORK: N websites PREFIX1.example.com... through the API (no bot
# exclusion, so every 202 is a counted hit); sets sites (their domains) and site_list (joined
# by commas). With BENCH_SHIELDS=1 each gets the benchmarks' shields (`loadgen -shields`: 50
# countries, 50 page patterns, 20 hostnames, which the traffic passes).
create_sites() {
  local base=$1 key=$2 prefix=$3 n=$4 work=$5 domain status shields
  sites=()
  for i in $(seq 1 "$n"); do
    domain="$prefix$i.example.com"
    shields=()
    if [ "${BENCH_SHIELDS:-0}" = 1 ]; then
      bin/loadgen -shields "$domain" >"$work/shields.json"
      for field in block_countries block_pages allowed_hostnames; do
        shields+=(--data-urlencode "$field=$(jq -r ".$field" "$work/shields.json")")
      done
    fi
    status=$(curl -s -o "$work/site.json" -w '%{http_code}' -H "Authorization: Bearer $key" \
      --data-urlencode "domain=$domain" -d exclude_bots=0 "${shields[@]}" "$base/api/v1/websites")
    [ "$status" = 201 ] || { say "creating $domain answered $status: $(cat "$work/site.json")"; return 1; }
    sites+=("$domain")
  done
  site_list=$(IFS=,; echo "${sites[*]}")
}
