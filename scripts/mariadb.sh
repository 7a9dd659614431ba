#!/usr/bin/env bash
# A private MariaDB server for the phpAnalytics import's tests and benchmark, listening only on
# a Unix socket inside its own directory (no TCP port), so it never clashes with another server
# on the machine. The root account has no password there: it is a throw-away instance.
#
#   scripts/mariadb.sh install              install MariaDB with apt when it is missing
#   scripts/mariadb.sh start DIR            create DIR's data directory if needed, start the
#                                           server; prints a DSN (go-sql-driver/mysql) for it
#   scripts/mariadb.sh stop DIR             stop it
#
# mariadbd refuses to run as root, so as root the server is run by the `mysql` system user
# that Debian's package creates.
set -euo pipefail

installed() { command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ]; }

install() {
  if installed; then return; fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "MariaDB is not installed; install the mariadb-server package (apt-get install mariadb-server)." >&2
    exit 1
  fi
  echo "Installing MariaDB with apt..." >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server >&2
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u mysql -- "$@"; else "$@"; fi
}

start() {
  local dir=$1
  install
  local bin=/usr/sbin/mariadbd
  command -v mariadbd >/dev/null 2>&1 && bin=$(command -v mariadbd)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" = 0 ]; then
    chown mysql: "$dir"
    local p=$dir
    while [ "$p" != / ]; do p=$(dirname "$p"); chmod o+x "$p" 2>/dev/null || true; done
  fi
  if [ ! -d "$dir/data/mysql" ]; then
    as_owner mariadb-install-db --no-defaults --datadir="$dir/data" --auth-root-authentication-method=normal \
      --skip-test-db >"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; exit 1; }
  fi
  if [ ! -S "$dir/mysqld.sock" ]; then
    # Durability off (a throw-away server): innodb_flush_log_at_trx_commit=0, no doublewrite.
    as_owner "$bin" --no-defaults --datadir="$dir/data" --socket="$dir/mysqld.sock" --pid-file="$dir/mysqld.pid" \
      --skip-networking --log-error="$dir/server.log" --innodb-flush-log-at-trx-commit=0 \
      --innodb-doublewrite=0 --innodb-buffer-pool-size=256M --max-connections=200 \
      --local-infile=1 --secure-file-priv="" >/dev/null 2>&1 &
    local i
    for i in $(seq 1 300); do
      [ -S "$dir/mysqld.sock" ] && break
      sleep 0.1
    done
    if [ ! -S "$dir/mysqld.sock" ]; then
      echo "MariaDB did not start; its log:" >&2
      cat "$dir/server.log" >&2 || true
      exit 1
    fi
  fi
  echo "root@unix($dir/mysqld.sock)/"
}

stop() {
  local dir=$1
  [ -f "$dir/mysqld.pid" ] || return 0
  local pid; pid=$(cat "$dir/mysqld.pid")
  kill "$pid" 2>/dev/null || return 0
  local i
  for i in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
}

case "${1:-}" in
  install) install ;;
  start) start "${2:?directory}" ;;
  stop) stop "${2:?directory}" ;;
  *) echo "usage: $0 install | start DIR | stop DIR" >&2; exit 2 ;;
esac
