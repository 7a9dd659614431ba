# Shell helpers of the benchmarks (scripts/bench-ingest.sh, bench-flood.sh, bench-hitcost.sh); sourced.

say() { printf '%s\n' "$*" >&2; }

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
