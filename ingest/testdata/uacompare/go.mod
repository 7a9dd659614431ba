// A one-off comparison of user-agent libraries, kept so that the figures in
// docs/enrichment.md can be reproduced; see main.go.
module github.com/analytics-service/analytics/ingest/testdata/uacompare

go 1.26.0

require (
	github.com/avct/uasurfer v0.0.0-20251203101750-d127e02ee278
	github.com/medama-io/go-useragent v1.2.4
	github.com/mileusna/useragent v1.3.5
	github.com/mssola/useragent v1.0.0
	github.com/ua-parser/uap-go v0.0.0-20260529044130-17c35e68e58c
	github.com/x-way/crawlerdetect v0.2.31
	zgo.at/isbot v1.0.0
)

require (
	github.com/boyter/go-string v1.0.5 // indirect
	github.com/hashicorp/golang-lru v1.0.2 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
