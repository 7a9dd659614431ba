#!/usr/bin/env bash
# A private PostgreSQL cluster for `make run` and `make test`, listening only on a Unix socket
# inside its own directory, so it never clashes with another server on the machine.
#
#   scripts/postgres.sh install              install PostgreSQL with apt when it is missing
#   scripts/postgres.sh start DIR [fast]     initdb DIR if needed, start it; prints its DATABASE_URL
#   scripts/postgres.sh stop DIR             stop it
#
# `fast` turns durability off (fsync, synchronous_commit, full_page_writes): for throw-away
# test clusters only. initdb and postgres refuse to run as root, so as root the cluster is run
# by the `postgres` system user that Debian's package creates.
set -euo pipefail

PORT=5432

bindir() {
  local d
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
    pg_config --bindir; return
  fi
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$d/initdb" ] && { echo "$d"; return; }
  done
  return 1
}

install() {
  if bindir >/dev/null; then return; fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "PostgreSQL is not installed; install the postgresql package (apt-get install postgresql)." >&2
    exit 1
  fi
  echo "Installing PostgreSQL with apt..." >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  local dir=$1 mode=${2:-}
  install
  local bin; bin=$(bindir)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" = 0 ]; then
    chown postgres: "$dir"
    # The postgres user must be able to reach the directory.
    local p=$dir
    while [ "$p" != / ]; do p=$(dirname "$p"); chmod o+x "$p" 2>/dev/null || true; done
  fi
  chmod 700 "$dir"
  if [ ! -f "$dir/PG_VERSION" ]; then
    as_owner "$bin/initdb" -D "$dir" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  fi
  local opts="-c listen_addresses='' -c unix_socket_directories='$dir' -p $PORT -c max_connections=200"
  if [ "$mode" = fast ]; then
    opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  fi
  if ! as_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
    as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 -o "$opts" start >/dev/null
  fi
  echo "host=$dir port=$PORT user=postgres dbname=postgres sslmode=disable"
}

stop() {
  local dir=$1
  [ -f "$dir/PG_VERSION" ] || return 0
  as_owner "$(bindir)/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
}

case "${1:-}" in
  install) install ;;
  start) start "${2:?directory}" "${3:-}" ;;
  stop) stop "${2:?directory}" ;;
  *) echo "usage: $0 install | start DIR [fast] | stop DIR" >&2; exit 2 ;;
esac
