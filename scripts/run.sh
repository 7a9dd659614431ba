#!/usr/bin/env bash
# `make run`: a working service on a fresh machine with no configuration. Without DATABASE_URL
# it starts a private PostgreSQL under .data/ (installing PostgreSQL with apt if needed); then it
# migrates, makes a demo user with a fresh API key, prints how to use it, and serves.
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

go build -o bin/analytics ./cmd/analytics
bin/analytics migrate

email=demo@localhost
if out=$(bin/analytics user create --email "$email" 2>/dev/null); then :; else
  out=$(bin/analytics key create --email "$email")
fi
key=$(tail -n 1 <<<"$out")
addr=${LISTEN_ADDR:-:8080}
port=${addr##*:}

cat <<MSG

Demo user: $email
API key:   $key

Try it:
  curl -H 'Authorization: Bearer $key' -d domain=example.com http://localhost:$port/api/v1/websites
  curl -H 'Authorization: Bearer $key' http://localhost:$port/api/v1/websites

MSG
exec bin/analytics serve
