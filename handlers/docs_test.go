package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// The documentation page is served by the binary, without a key, as the spec declares it.
func TestServesTheDocs(t *testing.T) {
	e := newEnv(t)
	res := e.do(request{path: "/api/v1/docs"})
	if res.status != http.StatusOK || !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") {
		t.Fatalf("status %d, Content-Type %q", res.status, res.header.Get("Content-Type"))
	}
	if !strings.Contains(string(res.body), "List websites") {
		t.Error("the page does not document the operations")
	}
	csp := res.header.Get("Content-Security-Policy")
	if !strings.HasPrefix(csp, "default-src 'none'; script-src 'self'; style-src 'self';") || strings.Contains(csp, "http") ||
		strings.Contains(csp, "unsafe-inline") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	etag := res.header.Get("ETag")
	if res := e.do(request{path: "/api/v1/docs", headers: map[string]string{"If-None-Match": etag}}); res.status != http.StatusNotModified || len(res.body) != 0 {
		t.Errorf("revalidation: %d with %d bytes", res.status, len(res.body))
	}
	want(t, e.do(request{method: "POST", path: "/api/v1/docs"}), http.StatusMethodNotAllowed)
}
