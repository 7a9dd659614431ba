// Package web holds what the service sends to browsers, embedded in the binary: the tracker
// script that websites embed (GET /js/script.js) and its snippet, the pages' templates, CSS,
// JavaScript and icon, and the generated API docs page.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"html"
	"net/http"
	"strconv"
	"strings"
)

// script.min.js is script.js minified by esbuild (make generate): what is served, since every
// tracked page downloads it. script.js is the source to read and change.
//
//go:embed script.min.js
var files embed.FS

// asset is one representation of the script. The gzip copy is its own
// representation, so it has its own strong ETag: a strong validator promises
// byte-identical content.
type asset struct {
	body []byte
	etag string
}

var (
	plain   asset
	gzipped asset
)

func init() {
	body, err := files.ReadFile("script.min.js")
	if err != nil {
		panic(err) // the file is embedded at build time; missing means a broken build
	}
	plain = newAsset(body)
	// Compressed once here rather than per request: the script is fetched on
	// every tracked page view of every site.
	gzipped = newAsset(gzipBytes(body))
}

func gzipBytes(body []byte) []byte {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		panic(err)
	}
	if _, err := zw.Write(body); err != nil {
		panic(err)
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func newAsset(b []byte) asset {
	sum := sha256.Sum256(b)
	return asset{body: b, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`}
}

// ScriptHandler serves the tracker script. It is a plain net/http handler so
// it can be mounted anywhere (in echo with echo.WrapHandler).
func ScriptHandler() http.Handler {
	return http.HandlerFunc(serveScript)
}

func serveScript(w http.ResponseWriter, r *http.Request) {
	if methodNotAllowed(w, r) {
		return
	}
	h := w.Header()
	// An hour: browsers revalidate (cheap 304s) soon enough that a new
	// version of the script reaches every site within the hour.
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("X-Content-Type-Options", "nosniff")
	// Sites that use Subresource Integrity (crossorigin attribute) need CORS,
	// and sites that set Cross-Origin-Embedder-Policy need CORP to load it.
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	serveAsset(w, r, plain, gzipped, "application/javascript; charset=utf-8")
}

// serveAsset answers GET and HEAD with the plain or the gzip representation
// of an asset, each with its own strong ETag, and 304 when If-None-Match
// matches. The caller sets the asset's other headers first.
func serveAsset(w http.ResponseWriter, r *http.Request, plain, gzipped asset, contentType string) {
	h := w.Header()
	a := plain
	if acceptsGzip(r.Header.Values("Accept-Encoding")) {
		a = gzipped
		h.Set("Content-Encoding", "gzip")
	}
	// Caches must key on Accept-Encoding, for 304s as well as for 200s.
	h.Set("Vary", "Accept-Encoding")
	h.Set("ETag", a.etag)
	if etagMatches(r.Header.Values("If-None-Match"), a.etag) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(a.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(a.body)
	}
}

// ReadOnly serves GET and HEAD with h and answers anything else 405, with an Allow of exactly
// those two and the service's error body: for the endpoints that are only ever read (health,
// metrics, the tracker script, the docs).
func ReadOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !methodNotAllowed(w, r) {
			h.ServeHTTP(w, r)
		}
	})
}

// methodNotAllowed answers anything but GET and HEAD, and says whether it did.
func methodNotAllowed(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return false
	}
	h := w.Header()
	h.Set("Allow", "GET, HEAD")
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusMethodNotAllowed)
	// The service's one error body: {"message", "status"}, as the API answers.
	_, _ = w.Write([]byte(`{"message":"Method not allowed.","status":405}` + "\n"))
	return true
}

// acceptsGzip reports whether Accept-Encoding allows gzip: listed as gzip,
// x-gzip or *, with a q-value that is not zero ("gzip;q=0" refuses it).
func acceptsGzip(values []string) bool {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			coding, params, _ := strings.Cut(part, ";")
			coding = strings.ToLower(strings.TrimSpace(coding))
			if coding != "gzip" && coding != "x-gzip" && coding != "*" {
				continue
			}
			if !qZero(params) {
				return true
			}
		}
	}
	return false
}

func qZero(params string) bool {
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(p, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err == nil && q == 0
	}
	return false
}

// etagMatches applies If-None-Match: "*" or any listed tag equal to etag
// under weak comparison (RFC 9110 section 13.1.2), so W/"x" matches "x".
func etagMatches(values []string, etag string) bool {
	for _, v := range values {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == etag {
				return true
			}
		}
	}
	return false
}

// Snippet returns the tag a site adds to its pages to be tracked, for a
// service reachable at baseURL (e.g. "https://analytics.example.com").
func Snippet(baseURL string) string {
	b := html.EscapeString(strings.TrimRight(baseURL, "/"))
	return `<script async defer src="` + b + `/js/script.js" data-host="` + b + `"></script>`
}

// SnippetFor is the tag for the website domain: with data-local for a local domain
// (LocalDomain), without which the tracker sends nothing from a page on localhost or a file:
// page, and says so in the console. Every snippet shown for one website comes from here: the
// pages and the CLI's (analytics snippet, which make run prints).
func SnippetFor(baseURL, domain string) string {
	tag := Snippet(baseURL)
	if LocalDomain(domain) {
		tag = strings.TrimSuffix(tag, "></script>") + " data-local></script>"
	}
	return tag
}

// LocalDomain tells whether a website's domain names a machine of its own developer, not a
// public website: localhost and the names reserved for local use (RFC 6761 .localhost and
// .test, RFC 6762 .local).
func LocalDomain(domain string) bool {
	d := strings.TrimSuffix(strings.ToLower(domain), ".")
	if d == "localhost" {
		return true
	}
	for _, suffix := range []string{".localhost", ".test", ".local"} {
		if strings.HasSuffix(d, suffix) && len(d) > len(suffix) {
			return true
		}
	}
	return false
}
