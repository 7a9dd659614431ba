package ingest

import (
	"net/url"
	"strings"

	"github.com/analytics-service/analytics/sources"
)

// Nothing that identifies a person, and no credential, is stored of the texts a stranger
// sends (docs/tracker.md, "What is redacted"). The rule of the campaign tags and properties
// (sources.Identifying: an e-mail address, or a run of 9 or more digits with spaces, dots or
// dashes between) applies to the page too: a path segment, a query parameter or a fragment's
// part that holds one is stored as sources.Redacted. And the parameters that carry credentials
// (credentialParams) are dropped from the page's query and fragment whatever the website
// excludes: an OAuth callback (/cb?code=...#access_token=...) must not put its secrets on a
// public dashboard. What is untouched costs a scan and no allocation.

// credentialParams are the query and fragment parameters dropped from every page, by their
// name in lower case: OAuth 2.0 and OpenID Connect (RFC 6749, 6750), SAML, CAS, signed URLs of
// object stores, and the names sign-in, reset and session links use.
var credentialParams = map[string]bool{
	"access_token": true, "id_token": true, "refresh_token": true, "code": true, "state": true,
	"token": true, "auth": true, "authorization": true, "api_key": true, "apikey": true,
	"password": true, "passwd": true, "pwd": true, "secret": true, "client_secret": true,
	"session": true, "session_id": true, "sessionid": true, "sid": true, "jsessionid": true, "phpsessid": true,
	"jwt": true, "otp": true, "ticket": true, "samlresponse": true, "samlrequest": true,
	"oauth_token": true, "oauth_verifier": true, "reset_token": true, "signature": true, "sig": true,
	"x-amz-signature": true, "x-amz-credential": true, "x-amz-security-token": true,
}

// maxCredentialParam is the length of the longest of credentialParams.
const maxCredentialParam = 20

// isCredentialParam tells whether a query parameter's raw name (as sent, escaped) is one of
// credentialParams, whatever its case.
func isCredentialParam(raw string) bool {
	name := raw
	if escaped(raw, true) {
		decoded, err := url.QueryUnescape(raw)
		if err != nil {
			return false
		}
		name = decoded
	}
	if len(name) < 3 || len(name) > maxCredentialParam {
		return false
	}
	var lower [maxCredentialParam]byte
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	return credentialParams[string(lower[:len(name)])]
}

// escaped tells whether a part of a URL holds an escape: a '%', or in a query a '+' (a space).
func escaped(part string, query bool) bool {
	return strings.IndexByte(part, '%') >= 0 || query && strings.IndexByte(part, '+') >= 0
}

// identifyingEscaped tells whether an escaped part of a URL holds what sources.Identifying
// finds, once unescaped (an @ sent as %40, spaces as %20 or, in a query, +).
func identifyingEscaped(part string, query bool) bool {
	if sources.Identifying(part) {
		return true
	}
	if !escaped(part, query) {
		return false
	}
	var decoded string
	var err error
	if query {
		decoded, err = url.QueryUnescape(part)
	} else {
		decoded, err = url.PathUnescape(part)
	}
	return err == nil && sources.Identifying(decoded)
}

// redactText is a text as stored: sources.Redacted when it holds identifying text.
func redactText(s string) string {
	if sources.Identifying(s) {
		return sources.Redacted
	}
	return s
}

// redactPath is an escaped path (or a fragment's route) with each segment that holds
// identifying text replaced by sources.Redacted.
func redactPath(path string) string {
	if !identifyingEscaped(path, false) {
		return path // nothing in the whole, so nothing in a segment (most paths)
	}
	segments := strings.Split(path, "/")
	for i, s := range segments {
		if identifyingEscaped(s, false) {
			segments[i] = sources.Redacted
		}
	}
	return strings.Join(segments, "/")
}

// redactQuery is a raw query without its credential parameters (isCredentialParam), nor those
// drop says to drop (nil: none), and with each parameter that holds identifying text written
// sources.Redacted (its value, or the whole parameter when its name holds it); the others as
// sent, in their order.
func redactQuery(raw string, drop func(name string) bool) string {
	if !queryNeedsWork(raw, drop) {
		return raw
	}
	kept := make([]string, 0, 8)
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		name, value, hasValue := strings.Cut(part, "=")
		switch {
		case isCredentialParam(name), drop != nil && drop(name):
		case identifyingEscaped(name, true):
			kept = append(kept, sources.Redacted)
		case hasValue && identifyingEscaped(value, true):
			kept = append(kept, name+"="+sources.Redacted)
		default:
			kept = append(kept, part)
		}
	}
	return strings.Join(kept, "&")
}

// queryNeedsWork tells whether redactQuery has a parameter of raw to drop or to redact (a
// query it rebuilds loses its empty parameters too: a && of one it leaves is kept as sent).
func queryNeedsWork(raw string, drop func(name string) bool) bool {
	if raw == "" {
		return false
	}
	if drop != nil || identifyingEscaped(raw, true) {
		return true
	}
	for rest := raw; rest != ""; {
		var part string
		part, rest, _ = strings.Cut(rest, "&")
		if name, _, _ := strings.Cut(part, "="); isCredentialParam(name) {
			return true
		}
	}
	return false
}

// redactFragment is a fragment kept as part of the page (hash-based routing) with its
// credentials and identifying parts redacted: the route (what is before a '?') as a path, and
// what follows it as a query. A fragment without '?' that holds a '=' is all query, as the
// fragment of an OAuth implicit grant (#access_token=...&token_type=...) is.
func redactFragment(fragment string) string {
	route, query, hasQuery := strings.Cut(fragment, "?")
	if !hasQuery && strings.Contains(route, "=") {
		return redactQuery(route, nil)
	}
	route = redactPath(route)
	if !hasQuery {
		return route
	}
	if query = redactQuery(query, nil); query == "" {
		return route
	}
	return route + "?" + query
}
