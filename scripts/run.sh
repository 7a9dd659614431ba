#!/usr/bin/env bash
# `make run`: a working service on a fresh machine with no configuration. Without DATABASE_URL
# it starts a private PostgreSQL under .data/ (installing PostgreSQL with apt if needed); then it
# migrates, makes a demo user with a fresh API key and sign-in password, prints how to use
# them, and serves.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/cc.sh install

if [ -z "${DATABASE_URL:-}" ]; then
  server=$(scripts/postgres.sh start .data/pg)
  if ! psql "$server" -tAc "SELECT 1 FROM pg_database WHERE datname = 'analytics'" | grep -q 1; then
    psql "$server" -qc "CREATE DATABASE analytics"
  fi
  DATABASE_URL="${server/dbname=postgres/dbname=analytics}"
  export DATABASE_URL
  echo "PostgreSQL: private cluster in .data/pg (stop it with: scripts/postgres.sh stop .data/pg)"
fi

# GeoIP as shipped: .data/GeoLite2-City.mmdb, fetched once (scripts/geoip.sh).
. scripts/geoip.sh
ensure_geoip

go build -o bin/analytics ./cmd/analytics
bin/analytics migrate

email=demo@localhost
if out=$(bin/analytics user create --email "$email" --admin 2>/dev/null); then :; else
  out=$(bin/analytics key create --email "$email")
fi
key=$(tail -n 1 <<<"$out")
# A new sign-in password for the stats pages on every run, like the key (read from stdin, so it
# shows in no process list).
password=$(head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')
password=${password:0:20}
printf '%s\n' "$password" | bin/analytics user password --email "$email" >/dev/null
addr=${LISTEN_ADDR:-:8080}
port=${addr##*:}
# The address browsers reach the service at: PUBLIC_URL (with any path prefix), else this machine.
public=${PUBLIC_URL:-http://localhost:$port}
public=${public%/}
if [ -z "${PUBLIC_URL:-}" ]; then
  note="
Note: PUBLIC_URL is not set, so this snippet uses http://localhost:$port, which only browsers on
this machine reach. Set PUBLIC_URL to the address your websites' visitors reach the service at
(e.g. PUBLIC_URL=https://stats.example.com make run). E-mail reports are sent only once it is set."
else
  note=""
fi

cat <<MSG

Demo user: $email
Password:  $password   (sign in at $public/login)
API key:   $key

Try it:
  curl -H 'Authorization: Bearer $key' -d domain=example.com http://localhost:$port/api/v1/websites
  curl -H 'Authorization: Bearer $key' http://localhost:$port/api/v1/websites

Tracker snippet (put it in the <head> of your websites' pages):
  $(bin/analytics snippet --url "$public" --domain example.com)
Hits count only for a website whose domain is the page's host, so add it first, e.g. for a page on localhost:
  curl -H 'Authorization: Bearer $key' -d domain=localhost http://localhost:$port/api/v1/websites
and put the snippet of a local website (data-local: without it the tracker sends nothing from
localhost, and says so in the browser's console) on its pages:
  $(bin/analytics snippet --url "$public" --domain localhost)
$note
MSG
exec bin/analytics serve
