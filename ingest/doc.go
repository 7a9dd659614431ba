// Package ingest is collection: the handler of POST /api/event parses and bounds a hit, finds
// its website in a cache of settings, applies the exclusions, enriches it (user agent, GeoIP)
// and counts it in memory; the flusher writes the counters to PostgreSQL. No IP address or
// user agent is kept beyond the request (the user-agent memo holds strings, never who sent them).
package ingest
