# The two commands that matter: `make run` and `make test`. See README.md.
.PHONY: run test generate check-generate lint-spec bench bench-ingest bench-flood build tools fuzz

GO ?= go

run:
	scripts/run.sh

test:
	scripts/test.sh go test -race -count=1 ./...

build:
	$(GO) build -o bin/analytics ./cmd/analytics

# Every fuzz target for FUZZTIME each (default 1m; CI runs 10s), against a throw-away cluster.
fuzz:
	scripts/test.sh scripts/fuzz.sh

generate:
	$(GO) tool oapi-codegen -config gen/config.yaml openapi.yaml

# Fails when gen/ is not what the spec generates.
check-generate:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	sed "s#^output: .*#output: $$tmp/api.gen.go#" gen/config.yaml > $$tmp/config.yaml && \
	$(GO) tool oapi-codegen -config $$tmp/config.yaml openapi.yaml && \
	if ! diff -q $$tmp/api.gen.go gen/api.gen.go >/dev/null; then \
		echo "gen/ is stale: run 'make generate' and commit the result" >&2; exit 1; fi

tools/node_modules/.bin/redocly: tools/package.json tools/package-lock.json
	cd tools && npm ci --no-audit --no-fund --ignore-scripts
	touch $@

tools: tools/node_modules/.bin/redocly

lint-spec: tools
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true tools/node_modules/.bin/redocly lint --format=stylish openapi.yaml

# Benchmarks of the stats API through HTTP on a year of data (see README: Performance).
bench:
	scripts/test.sh go test -run '^$$' -bench . -benchtime 400x -count 1 ./handlers/

# Load test of POST /api/event (see scripts/bench-ingest.sh): realistic mixed traffic against the
# real service and PostgreSQL on this machine, closed loop then open loop at 15,000/s, 60 s each,
# then the do-nothing ceiling. Knobs: BENCH_DURATION, BENCH_CONCURRENCY, BENCH_OPEN_RATE, GEOIP_DB.
bench-ingest:
	scripts/bench-ingest.sh

# POST /api/event while one address floods it with never-seen user agents, beside ordinary
# visitors at a fixed rate (see scripts/bench-flood.sh). BENCH_REV=REV runs the server of that
# revision, for a before/after on the same machine.
bench-flood:
	scripts/bench-flood.sh
