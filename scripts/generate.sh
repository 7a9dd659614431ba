#!/usr/bin/env bash
# Generates everything that is derived from openapi.yaml, into the directory given (default: the
# repository itself), at the same paths:
#   gen/api.gen.go                the server interface and models (oapi-codegen, gen/config.yaml)
#   gen/client/client.gen.go      the Go client (oapi-codegen, gen/client/config.yaml)
#   sdk/typescript/src/schema.ts  the TypeScript types (openapi-typescript)
#   web/script.min.js             the served tracker, web/script.js minified (esbuild)
#   worldmap/outline.txt          the dashboard map's countries (tools/worldmap, from the npm
#                                 packages world-atlas and i18n-iso-countries in tools/)
# `make generate` writes them in place; `make check-generate` writes them to a temporary
# directory and fails if any differs from the committed one.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.}
GO=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for config in gen/config.yaml gen/client/config.yaml; do
  target=$(sed -n 's/^output: //p' "$config")
  mkdir -p "$out/$(dirname "$target")"
  sed "s#^output: .*#output: $out/$target#" "$config" > "$tmp/config.yaml"
  $GO tool oapi-codegen -config "$tmp/config.yaml" openapi.yaml
done

# openapi-typescript 7 marks form fields that have a default as required unless told not to.
mkdir -p "$out/sdk/typescript/src"
sdk/typescript/node_modules/.bin/openapi-typescript openapi.yaml --default-non-nullable false \
  --output "$out/sdk/typescript/src/schema.ts" >"$tmp/openapi-typescript.log" 2>&1 || { cat "$tmp/openapi-typescript.log" >&2; exit 1; }

# The tracker is served minified: every tracked page downloads it (web/web.go).
mkdir -p "$out/web"
$GO tool esbuild web/script.js --minify --target=es5 --log-level=warning --outfile="$out/web/script.min.js"

# The dashboard's map: Natural Earth's countries (public domain), pinned in tools/package.json.
mkdir -p "$out/worldmap"
$GO run ./tools/worldmap tools/node_modules/world-atlas/countries-110m.json \
  tools/node_modules/i18n-iso-countries/codes.json > "$out/worldmap/outline.txt"
