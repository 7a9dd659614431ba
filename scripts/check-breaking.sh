#!/usr/bin/env bash
# Fails when a spec (default: openapi.yaml) breaks what clients of the released v1 spec rely on:
# oasdiff (pinned in tools/oasdiff) compares it with openapi-v1-baseline.yaml.
#   --fail-on WARN            "potentially breaking" fails too
#   --flatten-allof           a field that became `allOf: [$ref]` is compared by what it allows
#   --include-path-params     renaming a path parameter ({id}) is a removed endpoint: generated
#                             clients name it
#   severity-levels.txt       raises to errors what oasdiff calls info but generated clients break
#                             on: a removed operationId or schema, a removed optional response field
# Usage: scripts/check-breaking.sh [SPEC]
set -euo pipefail
cd "$(dirname "$0")/.."
base=$PWD/openapi-v1-baseline.yaml
rev=$(realpath "${1:-openapi.yaml}")
cd tools/oasdiff
exec ${GO:-go} tool oasdiff breaking "$base" "$rev" --fail-on WARN --flatten-allof --include-path-params \
  --severity-levels severity-levels.txt --format text --color never
