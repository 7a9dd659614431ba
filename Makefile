# The two commands that matter: `make run` and `make test`. See README.md.
.PHONY: run test generate check-generate check-breaking lint-spec contract bench bench-filters bench-goals bench-query bench-bigsite bench-ingest bench-flood bench-row-flood bench-import bench-visits bench-collector bench-hitcost bench-queries build tools sdk sdk-deps fuzz

GO ?= go

run:
	scripts/run.sh

test:
	scripts/test.sh go test -race -count=1 -timeout 30m ./...

build:
	$(GO) build -o bin/analytics ./cmd/analytics

# Every fuzz target for FUZZTIME each (default 1m; CI runs 10s), against a throw-away cluster.
fuzz:
	scripts/test.sh scripts/fuzz.sh

# Everything derived from openapi.yaml: gen/, gen/client/ and the TypeScript SDK's types
# (scripts/generate.sh). The API documentation page is rendered from the embedded spec when the
# service starts (web/docs.go).
GENERATED = gen/api.gen.go gen/client/client.gen.go sdk/typescript/src/schema.ts web/script.min.js worldmap/outline.txt

generate: tools sdk-deps
	GO=$(GO) scripts/generate.sh

# Fails when a generated file is not what the spec generates.
check-generate: tools sdk-deps
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	GO=$(GO) scripts/generate.sh $$tmp && stale=0 && \
	for f in $(GENERATED); do \
		if ! cmp -s $$tmp/$$f $$f; then echo "$$f is stale" >&2; stale=1; fi; \
	done && \
	if [ $$stale = 1 ]; then echo "run 'make generate' and commit the result" >&2; exit 1; fi

sdk/typescript/node_modules/.bin/tsc: sdk/typescript/package.json sdk/typescript/package-lock.json
	cd sdk/typescript && npm ci --no-audit --no-fund --ignore-scripts
	touch $@

sdk-deps: sdk/typescript/node_modules/.bin/tsc

# The TypeScript SDK, compiled with tsc --strict (and stricter: sdk/typescript/tsconfig.json).
sdk: sdk-deps
	cd sdk/typescript && npm run --silent build

# Fails when openapi.yaml breaks a client of the released v1 spec (openapi-v1-baseline.yaml):
# oasdiff, pinned in tools/oasdiff. Its own test is TestBreakingChangeCheck (openapi_test.go).
check-breaking:
	GO=$(GO) scripts/check-breaking.sh

tools/node_modules/.bin/redocly: tools/package.json tools/package-lock.json
	cd tools && npm ci --no-audit --no-fund --ignore-scripts
	touch $@

tools: tools/node_modules/.bin/redocly

lint-spec: tools
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true tools/node_modules/.bin/redocly lint --format=stylish openapi.yaml

# Contract and fuzz tests generated from openapi.yaml by third-party tools (Portman run by Newman,
# and Dredd; pinned in tools/package-lock.json) against the real binary and a throw-away
# PostgreSQL: scripts/contract.sh.
contract: tools
	GO=$(GO) scripts/test.sh scripts/contract.sh

# Benchmarks through HTTP on a year of data (see README: Performance): the stats API and the
# dashboard. The server runs with the garbage collector paced as `analytics serve` paces it
# when GOGC and GOMEMLIMIT are unset (docs/decisions.md, Collection).
bench:
	GOGC=off GOMEMLIMIT=100MiB scripts/test.sh go test -run '^$$' -bench . -benchtime 400x -count 1 ./handlers/ ./pages/
	$(MAKE) bench-filters
	$(MAKE) bench-query
	$(MAKE) bench-hitcost

# Filtered reads (issue 17) on 20 websites x 10,000 visits a day for BENCH_FILTER_DAYS days
# (default 365: about 24 GB and 8 minutes to write; 40 while developing): p50/p95/p99 of each
# read and of the dashboard's, and the bytes visit_rows takes per visit and per pageview.
bench-filters:
	scripts/test.sh go test -run '^$$' -bench FilteredReads -benchtime 20x -count 1 -timeout 120m -v ./repository/

# The goals' reads alone (docs/goals.md), on the same data set over 31 days: the goals list of
# 20 goals and the summaries filtered by a goal, through the repository and the API.
bench-goals:
	BENCH_FILTER_DAYS=31 scripts/test.sh go test -run '^$$' \
		-bench 'FilteredReads/(goals|http)/(list_20|summary_pageview_goal|summary_event_goal|goals_20)' \
		-benchtime 10x -count 1 -timeout 60m -v ./repository/

# The query API's engine (POST /api/v2/query) on the filtered reads' data set, 30 days: p50/p95/p99
# of visit-level and hit-level queries and of matches beside is filters (docs/query.md).
bench-query:
	scripts/test.sh go test -run '^$$' -bench QueryAPI -benchtime 20x -count 1 -timeout 60m -v ./repository/

# Big sites (docs/big-sites.md): one website of BENCH_VISITS_PER_DAY visits a day (100,000) among
# BENCH_WEBSITES websites of 10,000 (20), BENCH_DAYS days (30): p50/p95 of the query API's set
# (visit/, hit/), funnels of 2-8 steps and the dashboard's reads (dashboard/), BENCH_RUNS (10) each.
BENCH_RUNS ?= 10
bench-bigsite:
	scripts/test.sh go test -run '^$$' -bench BigSite -benchtime $(BENCH_RUNS)x -count 1 -timeout 180m -v ./repository/

# Load test of POST /api/event (see scripts/bench-ingest.sh): realistic mixed traffic against the
# real service and PostgreSQL on this machine, closed loop then open loop at 15,000/s, 60 s each,
# then the do-nothing ceiling. Knobs: BENCH_DURATION, BENCH_CONCURRENCY, BENCH_OPEN_RATE, GEOIP_DB.
bench-ingest:
	scripts/bench-ingest.sh

# The CPU a hit costs the collector beside a do-nothing Go HTTP server's per request, on
# visitors' traffic and when every hit is a new visitor; the two ratios and nothing lost
# (scripts/bench-hitcost.sh, docs/cost-of-a-hit.md). BENCH_REV=REV measures that revision.
bench-hitcost:
	scripts/bench-hitcost.sh

# POST /api/event while one address floods it with never-seen user agents, beside ordinary
# visitors at a fixed rate (see scripts/bench-flood.sh). BENCH_REV=REV runs the server of that
# revision, for a before/after on the same machine.
bench-flood:
	scripts/bench-flood.sh

# One stranger's visit whose row would grow: 190 Plausible pageviews a second with 30 long
# properties, for BENCH_DURATION (10m), while another website's hits are timed until counted;
# RSS, flush durations, the row's size and the drain at SIGTERM (scripts/bench-row-flood.sh).
bench-row-flood:
	scripts/bench-row-flood.sh

# Import of a phpAnalytics database of BENCH_IMPORT_ROWS stats rows (default 10 million, 10
# websites), generated in a throw-away MariaDB, by the real binary into a throw-away PostgreSQL:
# prints the time, the rate and the import's peak RSS.
bench-import:
	scripts/test.sh go test -run '^$$' -bench BenchmarkImportPHPAnalytics -benchtime 1x -timeout 60m -v ./importer/phpanalytics/
	scripts/test.sh go test -run '^$$' -bench BenchmarkImportGoatCounter -benchtime 1x -timeout 60m -v ./importer/goatcounter/

# Memory of open visits: BENCH_VISITORS (1,000,000) new visitors, then the server's open visits
# and RSS (scripts/bench-visits.sh); and the bytes an open visit takes in the heap.
bench-visits:
	go test -run '^$$' -bench OpenVisits -benchtime 1000000x ./ingest/
	scripts/bench-visits.sh

# Issue 43's attack by one API key on the real server, beside another user's reads and hits
# (scripts/bench-queries.sh): their latency, /readyz, the server's RSS, phase by phase.
# BENCH_REV=main measures main's server with the same benchmark.
bench-queries:
	scripts/bench-queries.sh

# The collector's own cost per hit (BenchmarkCollector), this tree and BENCH_REV (default main)
# side by side, alternating BENCH_COUNT (5) runs each; compare the medians.
bench-collector:
	scripts/test.sh scripts/bench-collector.sh
