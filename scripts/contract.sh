#!/usr/bin/env bash
# `make contract`: third-party contract and fuzz tests generated from openapi.yaml, against the
# real binary on a throw-away PostgreSQL (scripts/test.sh provides DATABASE_URL):
#   Portman   turns the spec into a Postman collection: a contract test per operation (status,
#             Content-Type, JSON body, schema, required headers) and variations (no key, unknown
#             id, invalid parameters and fields, fuzzed query parameters and hit bodies, 304s),
#             tools/contract/portman-config.json
#   Newman    runs that collection
#   Dredd     one request per declared response, from the spec's examples, made to cause that
#             response by tools/contract/dredd-hooks.js
# It builds bin/analytics, serves it on a free port below 32768 with the rate limits off (the
# tools send many requests, a few without a key), creates a user and its key with the binary and
# three websites, four goals, three funnels, segments and annotations through the API, what the Sites API's
# examples need (two sites to delete, three goals, custom properties, a shared link and guests of
# the kept website: the examples' example.com is rewritten to it), and fails on any failed
# assertion, on any 5xx and on any error the server logs. The tools come from
# tools/package-lock.json (`make tools`); nothing is downloaded while it runs.
#
# Usage: scripts/test.sh scripts/contract.sh   (what `make contract` runs)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
: "${DATABASE_URL:?run me through scripts/test.sh, which starts a throw-away PostgreSQL}"
bin=$root/tools/node_modules/.bin
for tool in portman newman dredd; do
  [ -x "$bin/$tool" ] || { echo "contract: $bin/$tool missing: run make tools" >&2; exit 1; }
done

work=$(mktemp -d /tmp/analytics-contract.XXXXXX)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
start=$SECONDS
step() { printf 'contract: %s (%ds)\n' "$*" $((SECONDS - start)); }

step "building bin/analytics"
${GO:-go} build -o bin/analytics ./cmd/analytics

# A free port below 32768 (the kernel hands out ephemeral ports above it).
port=
for _ in $(seq 50); do
  candidate=$((20000 + RANDOM % 12000))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port=$candidate; break; fi
done
[ -n "$port" ] || { echo "contract: no free port found" >&2; exit 1; }
base=http://127.0.0.1:$port

bin/analytics migrate >"$work/migrate.log" 2>&1 || { cat "$work/migrate.log" >&2; exit 1; }
key=$(bin/analytics user create --email contract@example.com | tail -n 1)
stats_key=$(bin/analytics key create --email contract@example.com --scope stats:read | tail -n 1)

# TRUSTED_PROXIES: the run passes for a proxy, so that an X-Forwarded-For can stand for a
# stranger (the 403 of /metrics); requests without one come from loopback as ever.
LISTEN_ADDR=127.0.0.1:$port TRUSTED_PROXIES=127.0.0.1/32 API_RATE_LIMIT=0 API_AUTH_FAILURE_LIMIT=0 EVENT_RATE_LIMIT=0 \
  FLUSH_INTERVAL=200ms bin/analytics serve >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
  curl -sf -o /dev/null "$base/readyz" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.1
done
step "serving on $base"

# Websites: one the operations read and change, and one for each tool's DELETE to remove.
website() {
  curl -sf -H "Authorization: Bearer $key" -d "domain=$1" "$base/api/v1/websites" |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).data.id))'
}
website_domain=contract.example
website_id=$(website "$website_domain")
portman_delete_id=$(website portman-deletes.contract.example)
dredd_delete_id=$(website dredd-deletes.contract.example)
# Goals of the kept website, one for each tool's DELETE of a goal to remove.
goal() {
  curl -sf -H "Authorization: Bearer $key" -d kind=event --data-urlencode "event=$1" "$base/api/v1/websites/$website_id/goals" |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).data.id))'
}
portman_goal_id=$(goal "Portman deletes")
dredd_goal_id=$(goal "Dredd deletes")
# Two goals kept for funnels, and funnels of them: one each tool reads, one each deletes.
step_a=$(goal "Funnel step A")
step_b=$(goal "Funnel step B")
funnel() {
  curl -sf -H "Authorization: Bearer $key" --data-urlencode "name=$1" -d "steps=$step_a&steps=$step_b" \
    "$base/api/v1/websites/$website_id/funnels" |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).data.id))'
}
kept_funnel_id=$(funnel "Kept")
# A viewer of the kept website, whose changes are the API's 403 (docs/teams.md): a member as an
# accepted invitation makes one.
viewer_key=$(bin/analytics user create --email viewer@example.com | tail -n 1)
psql "$DATABASE_URL" -q -c "INSERT INTO website_members (website_id, user_id, role, created_at)
  SELECT $website_id, id, 'viewer', now() FROM users WHERE email = 'viewer@example.com'"
portman_funnel_id=$(funnel "Portman deletes")
dredd_funnel_id=$(funnel "Dredd deletes")
# Site-wide segments and annotations of the kept website: one each tool changes (and its
# viewer is refused), one each deletes.
pinned() {
  curl -sf -H "Authorization: Bearer $key" -d type=site "$@" |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).data.id))'
}
segment() { pinned --data-urlencode "name=$1" --data-urlencode 'filters=[["is", "visit:country", ["DE"]]]' "$base/api/v1/websites/$website_id/segments"; }
annotation() { pinned -d date=2026-03-10 --data-urlencode "note=$1" "$base/api/v1/websites/$website_id/annotations"; }
kept_segment_id=$(segment "Kept")
portman_segment_id=$(segment "Portman deletes")
dredd_segment_id=$(segment "Dredd deletes")
kept_annotation_id=$(annotation "Kept")
portman_annotation_id=$(annotation "Portman deletes")
dredd_annotation_id=$(annotation "Dredd deletes")

# The Sites API's (Plausible's): a site for each tool's DELETE, the goals each deletes, the
# custom property, shared link and guest the examples name (author, WordPress, alice), and a
# property and a guest each tool removes.
portman_sites_delete=portman-site-deletes.contract.example
dredd_sites_delete=dredd-site-deletes.contract.example
website "$portman_sites_delete" >/dev/null
website "$dredd_sites_delete" >/dev/null
portman_sites_goal_id=$(goal "Portman deletes (Sites API)")
# Dredd deletes twice: once with a JSON body, once with a form.
dredd_sites_goal_ids=$(goal "Dredd deletes (Sites API, JSON)"),$(goal "Dredd deletes (Sites API, form)")
sites_put() {
  curl -sf -o /dev/null -X PUT -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
    -d "$2" "$base/api/v1/sites/$1?site_id=$website_domain"
}
for prop in author portman_deletes dredd_deletes; do sites_put custom-props "{\"property\": \"$prop\"}"; done
sites_put shared-links '{"name": "WordPress"}'
for guest in alice portman-guest dredd-guest; do sites_put guests "{\"email\": \"$guest@example.com\", \"role\": \"viewer\"}"; done

failed=()
step "Portman: generating the collection"
# In its own directory: Portman reads a .env and writes a tmp/ where it runs. PORTMAN_X is
# the collection variable {{x}}.
if ! (cd "$work" && PORTMAN_API_KEY=$key PORTMAN_WEBSITE_ID=$website_id PORTMAN_DELETE_ID=$portman_delete_id \
  PORTMAN_GOAL_ID=$portman_goal_id PORTMAN_FUNNEL_ID=$portman_funnel_id \
  PORTMAN_KEPT_FUNNEL_ID=$kept_funnel_id PORTMAN_STEP_A=$step_a PORTMAN_STEP_B=$step_b \
  PORTMAN_SEGMENT_ID=$portman_segment_id PORTMAN_KEPT_SEGMENT_ID=$kept_segment_id \
  PORTMAN_ANNOTATION_ID=$portman_annotation_id PORTMAN_KEPT_ANNOTATION_ID=$kept_annotation_id \
  PORTMAN_STATS_KEY=$stats_key PORTMAN_VIEWER_KEY=$viewer_key PORTMAN_SITES_DELETE_DOMAIN=$portman_sites_delete PORTMAN_SITES_GOAL_ID=$portman_sites_goal_id \
  PORTMAN_WEBSITE_DOMAIN=$website_domain timeout 120 "$bin/portman" --local "$root/openapi.yaml" \
  --baseUrl "$base" --portmanConfigFile "$root/tools/contract/portman-config.json" \
  --output "$work/collection.json" >"$work/portman.log" 2>&1); then
  cat "$work/portman.log" >&2
  failed+=(portman)
fi
if [ -s "$work/collection.json" ]; then
  step "Newman: running the collection"
  timeout 300 "$bin/newman" run "$work/collection.json" --ignore-redirects --timeout-request 10000 \
    --color off --reporters cli || failed+=(newman)
fi

step "Dredd"
CONTRACT_API_KEY=$key CONTRACT_VIEWER_KEY=$viewer_key CONTRACT_STATS_KEY=$stats_key CONTRACT_WEBSITE_ID=$website_id CONTRACT_DELETE_ID=$dredd_delete_id CONTRACT_GOAL_ID=$dredd_goal_id \
  CONTRACT_FUNNEL_ID=$dredd_funnel_id CONTRACT_KEPT_FUNNEL_ID=$kept_funnel_id CONTRACT_STEP_A=$step_a CONTRACT_STEP_B=$step_b \
  CONTRACT_SEGMENT_ID=$dredd_segment_id CONTRACT_KEPT_SEGMENT_ID=$kept_segment_id \
  CONTRACT_ANNOTATION_ID=$dredd_annotation_id CONTRACT_KEPT_ANNOTATION_ID=$kept_annotation_id \
  CONTRACT_SITES_DELETE_DOMAIN=$dredd_sites_delete CONTRACT_SITES_GOAL_IDS=$dredd_sites_goal_ids \
  CONTRACT_WEBSITE_DOMAIN=$website_domain timeout 300 "$bin/dredd" "$root/openapi.yaml" "$base" --hookfiles "$root/tools/contract/dredd-hooks.js" \
  --loglevel warning --no-color >"$work/dredd.log" 2>&1 || failed+=(dredd)
# Dredd warns about every OpenAPI 3 keyword it does not read; the results are what counts.
grep -av 'parser warning\|padLevels\|trace-warnings\|nodedir' "$work/dredd.log" |
  grep -aE '^(fail|error|complete)|^(request|expected|actual|body|headers|statusCode):' || true

# No 5xx was answered and nothing went wrong on the server's side.
if grep -aE '"status":5[0-9][0-9]|"level":"ERROR"' "$work/server.log"; then
  failed+=(server-errors)
fi

step "done"
if [ ${#failed[@]} -gt 0 ]; then
  echo "contract: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "contract: Portman/Newman and Dredd passed against the running server"
