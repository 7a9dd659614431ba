#!/usr/bin/env bash
# The C and C++ toolchain cgo needs: the column store links DuckDB's static library (C++),
# which comes with its Go module. Installed with apt when missing, as PostgreSQL is.
#   scripts/cc.sh install
set -euo pipefail

install() {
  if command -v gcc >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1; then return; fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "A C and C++ compiler is needed (cgo, for DuckDB): install build-essential (apt-get install build-essential)." >&2
    exit 1
  fi
  echo "Installing a C and C++ compiler with apt..." >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential >&2
}

case "${1:-}" in
  install) install ;;
  *) echo "usage: scripts/cc.sh install" >&2; exit 2 ;;
esac
