package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/testkit/harness"
)

// The documentation page is served by the binary, without a key, as the spec declares it.
func TestServesTheDocs(t *testing.T) {
	e := newEnv(t)
	res := e.Do(harness.Request{Path: "/api/v1/docs"})
	if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("status %d, Content-Type %q", res.Status, res.Header.Get("Content-Type"))
	}
	if !strings.Contains(string(res.Body), "List websites") {
		t.Error("the page does not document the operations")
	}
	csp := res.Header.Get("Content-Security-Policy")
	if !strings.HasPrefix(csp, "default-src 'none'; script-src 'self'; style-src 'self';") || strings.Contains(csp, "http") ||
		strings.Contains(csp, "unsafe-inline") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	etag := res.Header.Get("ETag")
	if res := e.Do(harness.Request{Path: "/api/v1/docs", Headers: map[string]string{"If-None-Match": etag}}); res.Status != http.StatusNotModified || len(res.Body) != 0 {
		t.Errorf("revalidation: %d with %d bytes", res.Status, len(res.Body))
	}
	want(t, e.Do(harness.Request{Method: "POST", Path: "/api/v1/docs"}), http.StatusMethodNotAllowed)
}
