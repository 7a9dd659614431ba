package handlers_test

import (
	"net/http"
	"testing"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit/harness"
)

// env is one test's service (testkit/harness), its background jobs not running: the API needs
// none of them.
type env struct{ *harness.Env }

func newEnv(t testing.TB, opts ...func(*app.Config)) *env {
	t.Helper()
	var options []harness.Option
	for _, opt := range opts {
		options = append(options, harness.Configure(opt))
	}
	return &env{harness.New(t, options...)}
}

// in returns the env reporting to t (a subtest's), so a failure stops the right test.
func (e *env) in(t testing.TB) *env { return &env{e.In(t)} }

// want checks a status and, on errors, the API's error body.
func want(t testing.TB, res harness.Response, status int) map[string]any {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %d, want %d: %s", res.Status, status, res.Body)
	}
	body := res.JSON(t)
	if status >= 400 {
		if got := body["status"]; got != float64(status) {
			t.Fatalf("body status %v, want %d", got, status)
		}
		if _, has := body["errors"]; has != (status == http.StatusUnprocessableEntity) {
			t.Fatalf("errors present=%v on a %d: %s", has, status, res.Body)
		}
	}
	return body
}

// wantField checks a 422 that names exactly the given field.
func wantField(t testing.TB, res harness.Response, field string) {
	t.Helper()
	body := want(t, res, http.StatusUnprocessableEntity)
	errs, _ := body["errors"].(map[string]any)
	if len(errs) != 1 || errs[field] == nil {
		t.Fatalf("errors %v, want exactly the field %q", errs, field)
	}
	msgs, _ := errs[field].([]any)
	if len(msgs) == 0 || msgs[0] == "" {
		t.Fatalf("no message for %q: %v", field, errs)
	}
}
