#!/usr/bin/env bash
# Generates everything that is derived from openapi.yaml, into the directory given (default: the
# repository itself), at the same paths:
#   gen/api.gen.go                the server interface and models (oapi-codegen, gen/config.yaml)
#   gen/client/client.gen.go      the Go client (oapi-codegen, gen/client/config.yaml)
#   sdk/typescript/src/schema.ts  the TypeScript types (openapi-typescript)
#   web/apidocs.html              the API documentation page (Redocly build-docs)
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

# --inlineBundle: the page carries Redoc itself instead of loading it from a CDN. Redoc 3 still
# loads the logo of its "API docs by Redocly" credit from its CDN, which the page must not do:
# the two logo URLs become the same word drawn as an inline SVG. The page is checked in
# Chromium with every other host unreachable (web/docs_browser_test.go).
mkdir -p "$out/web"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true tools/node_modules/.bin/redocly build-docs openapi.yaml \
  --inlineBundle --output "$tmp/apidocs.html" >"$tmp/redocly.log" 2>&1 || { cat "$tmp/redocly.log" >&2; exit 1; }
logo=$(printf '%s' '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="16"><text x="0" y="13" font-family="sans-serif" font-size="13" fill="#3c4b5c">Redocly</text></svg>' | base64 -w0)
sed -E "s#https://cdn\.redoc\.ly/redoc/logo-mini(-full)?\.svg#data:image/svg+xml;base64,$logo#g" "$tmp/apidocs.html" > "$out/web/apidocs.html"
if grep -q 'cdn\.redoc\.ly' "$out/web/apidocs.html"; then echo "web/apidocs.html still loads a logo from the Redoc CDN" >&2; exit 1; fi
