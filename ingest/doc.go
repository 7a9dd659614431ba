// Package ingest is the tracker endpoint's pipeline: it turns one tracked hit
// into the values the stats count. This part enriches a hit: the user agent
// becomes browser, OS, device and a bot verdict; the client IP becomes
// continent, country and city. Nothing here keeps an IP or a user agent
// beyond the call (the user-agent memo holds strings, never who sent them).
package ingest
