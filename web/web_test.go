package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The tracker's budget, with every option: every tracked page downloads it.
const maxGzipSize = 2048

func TestScriptGzipSize(t *testing.T) {
	t.Logf("script.js: %d bytes, %d bytes gzipped (limit %d)", len(plain.body), len(gzipped.body), maxGzipSize)
	if len(gzipped.body) >= maxGzipSize {
		t.Fatalf("script.js is %d bytes gzipped, must be < %d", len(gzipped.body), maxGzipSize)
	}
}

// The served script.min.js must be script.js as it is now, minified (make generate): an edit
// of script.js that was not regenerated would not reach browsers, nor these tests.
func TestScriptMinifiedIsCurrent(t *testing.T) {
	cmd := exec.Command("go", "tool", "esbuild", "script.js", "--minify", "--target=es5", "--log-level=warning")
	cmd.Stderr = os.Stderr
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool esbuild: %v", err)
	}
	if !bytes.Equal(plain.body, want) {
		t.Fatal("web/script.min.js is not web/script.js minified: run make generate")
	}
}

func serve(t *testing.T, method string, header map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, "/js/script.js", nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	ScriptHandler().ServeHTTP(rec, req)
	return rec.Result()
}

func readBody(t *testing.T, res *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantHeader(t *testing.T, res *http.Response, key, want string) {
	t.Helper()
	if got := res.Header.Get(key); got != want {
		t.Errorf("%s = %q, want %q", key, got, want)
	}
}

func TestScriptHandlerGet(t *testing.T) {
	res := serve(t, http.MethodGet, nil)
	body := readBody(t, res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", res.StatusCode)
	}
	if !bytes.Equal(body, plain.body) {
		t.Error("body is not script.js")
	}
	wantHeader(t, res, "Content-Type", "application/javascript; charset=utf-8")
	wantHeader(t, res, "Cache-Control", "public, max-age=3600")
	wantHeader(t, res, "Vary", "Accept-Encoding")
	wantHeader(t, res, "Content-Encoding", "")
	wantHeader(t, res, "Content-Length", strconv.Itoa(len(plain.body)))
	etag := res.Header.Get("ETag")
	if len(etag) < 3 || etag[0] != '"' || etag[len(etag)-1] != '"' {
		t.Errorf("ETag %q is not a strong entity tag", etag)
	}
}

func TestScriptHandlerGzip(t *testing.T) {
	for _, tc := range []struct {
		accept string
		gzip   bool
	}{
		{"gzip", true},
		{"gzip, deflate, br, zstd", true},
		{"br;q=1.0, GZIP;q=0.5", true},
		{"x-gzip", true},
		{"*", true},
		{"gzip;q=0", false},
		{"gzip; q=0.000", false},
		{"br, deflate", false},
		{"identity", false},
		{"", false},
	} {
		t.Run(tc.accept, func(t *testing.T) {
			res := serve(t, http.MethodGet, map[string]string{"Accept-Encoding": tc.accept})
			body := readBody(t, res)
			wantHeader(t, res, "Vary", "Accept-Encoding")
			if !tc.gzip {
				wantHeader(t, res, "Content-Encoding", "")
				if !bytes.Equal(body, plain.body) {
					t.Error("identity body is not script.js")
				}
				return
			}
			wantHeader(t, res, "Content-Encoding", "gzip")
			wantHeader(t, res, "Content-Type", "application/javascript; charset=utf-8")
			wantHeader(t, res, "Content-Length", strconv.Itoa(len(gzipped.body)))
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, plain.body) {
				t.Error("gzip body does not decompress to script.js")
			}
		})
	}
}

func TestScriptHandlerETag(t *testing.T) {
	plainTag := serve(t, http.MethodGet, nil).Header.Get("ETag")
	gzipTag := serve(t, http.MethodGet, map[string]string{"Accept-Encoding": "gzip"}).Header.Get("ETag")
	if plainTag == gzipTag {
		t.Fatalf("identity and gzip share ETag %s; strong tags must differ between different bytes", plainTag)
	}

	for _, tc := range []struct {
		name        string
		accept      string
		ifNoneMatch string
		want        int
	}{
		{"same tag", "", plainTag, http.StatusNotModified},
		{"same gzip tag", "gzip", gzipTag, http.StatusNotModified},
		{"weak form", "", "W/" + plainTag, http.StatusNotModified},
		{"in a list", "", `"other", ` + plainTag, http.StatusNotModified},
		{"star", "", "*", http.StatusNotModified},
		{"other tag", "", `"other"`, http.StatusOK},
		{"gzip tag, identity asked", "", gzipTag, http.StatusOK},
		{"identity tag, gzip asked", "gzip", plainTag, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{"If-None-Match": tc.ifNoneMatch}
			if tc.accept != "" {
				h["Accept-Encoding"] = tc.accept
			}
			res := serve(t, http.MethodGet, h)
			body := readBody(t, res)
			if res.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.want)
			}
			if tc.want == http.StatusNotModified {
				if len(body) != 0 {
					t.Errorf("304 has a %d-byte body", len(body))
				}
				// A 304 must carry the validators and caching headers a 200 would.
				wantHeader(t, res, "Cache-Control", "public, max-age=3600")
				wantHeader(t, res, "Vary", "Accept-Encoding")
				if res.Header.Get("ETag") == "" {
					t.Error("304 without ETag")
				}
			}
		})
	}
}

func TestScriptHandlerHead(t *testing.T) {
	for _, accept := range []string{"", "gzip"} {
		get := serve(t, http.MethodGet, map[string]string{"Accept-Encoding": accept})
		head := serve(t, http.MethodHead, map[string]string{"Accept-Encoding": accept})
		if head.StatusCode != http.StatusOK {
			t.Fatalf("HEAD status %d, want 200", head.StatusCode)
		}
		if b := readBody(t, head); len(b) != 0 {
			t.Errorf("HEAD has a %d-byte body", len(b))
		}
		for _, k := range []string{"Content-Type", "Content-Length", "Content-Encoding", "ETag", "Cache-Control", "Vary"} {
			wantHeader(t, head, k, get.Header.Get(k))
		}
	}
}

func TestScriptHandlerMethodNotAllowed(t *testing.T) {
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions} {
		res := serve(t, m, nil)
		body := readBody(t, res)
		if res.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: status %d, want 405", m, res.StatusCode)
		}
		wantHeader(t, res, "Allow", "GET, HEAD")
		wantHeader(t, res, "Content-Type", "application/json")
		if want := `{"message":"Method not allowed.","status":405}`; strings.TrimSpace(string(body)) != want {
			t.Errorf("%s: body %q, want %q", m, body, want)
		}
	}
}

func TestSnippet(t *testing.T) {
	const want = `<script async defer src="https://stats.example.com/js/script.js" data-host="https://stats.example.com"></script>`
	for _, base := range []string{"https://stats.example.com", "https://stats.example.com/", "https://stats.example.com//"} {
		if got := Snippet(base); got != want {
			t.Errorf("Snippet(%q) =\n%s\nwant\n%s", base, got, want)
		}
	}
	// A base URL with a path prefix (service behind a reverse proxy).
	if got, want := Snippet("http://127.0.0.1:8080/analytics/"),
		`<script async defer src="http://127.0.0.1:8080/analytics/js/script.js" data-host="http://127.0.0.1:8080/analytics"></script>`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// The snippet of a local domain carries data-local; any other does not.
func TestSnippetFor(t *testing.T) {
	base := "https://stats.example"
	for domain, local := range map[string]bool{"localhost": true, "app.localhost": true, "shop.test": true, "printer.local": true,
		"LOCALHOST": true, "example.com": false, "localhost.example.com": false, "test": false, "contest": false, "local": false, "glocal": false} {
		got := SnippetFor(base, domain)
		want := `<script async defer src="https://stats.example/js/script.js" data-host="https://stats.example"></script>`
		if local {
			want = `<script async defer src="https://stats.example/js/script.js" data-host="https://stats.example" data-local></script>`
		}
		if got != want {
			t.Errorf("%s: %s, want %s", domain, got, want)
		}
	}
}
