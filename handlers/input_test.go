package handlers_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/analytics-service/analytics/testkit/harness"
)

// The URL query never acts as a form field, on any operation that takes a form: Go's ParseForm
// merges it into r.Form, which the generated handlers bind from.
func TestQueryIsNeverTheBody(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	id := e.store(key, "domain", "example.com")["id"]
	path := fmt.Sprintf("/api/v1/websites/%v", id)
	sneaky := "?favorite=true&privacy=1&email=1&exclude_bots=0&exclude_ips=10.0.0.1&exclude_params=ref&password=pw"

	for _, method := range []string{"PUT", "PATCH"} {
		t.Run(method+" empty body", func(t *testing.T) {
			got := want(t, e.in(t).Do(harness.Request{Method: method, Path: path + sneaky, Key: key}), http.StatusOK)["data"].(map[string]any)
			wantUntouched(t, got)
		})
		t.Run(method+" with a body", func(t *testing.T) {
			got := want(t, e.in(t).Do(harness.Request{Method: method, Path: path + sneaky, Key: key, Form: form("exclude_bots", "1")}), http.StatusOK)["data"].(map[string]any)
			wantUntouched(t, got)
		})
		// Values the binder could not read used to reach it from the query: a 500.
		for _, q := range []string{"?email=x", "?privacy=true", "?favorite=maybe", "?privacy=99999999999999999999", "?domain=other.com", "?colour=red"} {
			t.Run(method+" "+q, func(t *testing.T) {
				got := want(t, e.in(t).Do(harness.Request{Method: method, Path: path + q, Key: key}), http.StatusOK)["data"].(map[string]any)
				wantUntouched(t, got)
			})
		}
	}
	t.Run("POST", func(t *testing.T) {
		got := want(t, e.in(t).Do(harness.Request{Method: "POST", Path: "/api/v1/websites" + sneaky + "&domain=b.example.com", Key: key,
			Form: form("domain", "c.example.com")}), http.StatusCreated)["data"].(map[string]any)
		if got["domain"] != "c.example.com" {
			t.Fatalf("domain %v, want the body's", got["domain"])
		}
		wantUntouched(t, got)
	})
	t.Run("POST domain only in the query", func(t *testing.T) {
		wantField(t, e.in(t).Do(harness.Request{Method: "POST", Path: "/api/v1/websites?domain=d.example.com", Key: key}), "domain")
	})
	t.Run("POST unbindable query", func(t *testing.T) {
		got := want(t, e.in(t).Do(harness.Request{Method: "POST", Path: "/api/v1/websites?privacy=true&email=x", Key: key,
			Form: form("domain", "e.example.com")}), http.StatusCreated)["data"].(map[string]any)
		wantUntouched(t, got)
	})
}

// wantUntouched checks that a website has the defaults of a store: nothing of the query applied.
func wantUntouched(t *testing.T, w map[string]any) {
	t.Helper()
	defaults := map[string]any{"favorite": false, "privacy": 0.0, "email": 0.0, "exclude_bots": 1.0,
		"exclude_ips": nil, "exclude_params": nil, "password": false}
	for k, v := range defaults {
		if w[k] != v {
			t.Errorf("%s = %#v, want %#v: the query acted as the body", k, w[k], v)
		}
	}
}

// Every form operation refuses a value that is not of its field's type with a 422 naming the
// field, fields it does not take and fields sent twice; and a content type other than a form,
// even on an empty body.
func TestFormOperationsRefuseBadFields(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	id := e.store(key, "domain", "example.com")["id"]
	path := fmt.Sprintf("/api/v1/websites/%v", id)
	ops := []struct {
		method, path string
		base         []string // fields every request of the operation needs
	}{
		{"POST", "/api/v1/websites", []string{"domain", "new.example.com"}},
		{"PUT", path, nil},
		{"PATCH", path, nil},
	}
	bad := []struct{ field, value string }{
		{"privacy", "true"}, {"privacy", "1.5"}, {"privacy", "99999999999999999999"}, {"privacy", ""},
		{"email", "x"}, {"email", "1e0"}, {"exclude_bots", "-"}, {"exclude_bots", "0x1"},
	}
	for _, op := range ops {
		for _, b := range bad {
			t.Run(op.method+" "+b.field+"="+b.value, func(t *testing.T) {
				wantField(t, e.in(t).Do(harness.Request{Method: op.method, Path: op.path, Key: key, Form: form(append(op.base, b.field, b.value)...)}), b.field)
			})
		}
		t.Run(op.method+" unknown field", func(t *testing.T) {
			wantField(t, e.in(t).Do(harness.Request{Method: op.method, Path: op.path, Key: key, Form: form(append(op.base, "colour", "red")...)}), "colour")
		})
		t.Run(op.method+" field twice", func(t *testing.T) {
			wantField(t, e.in(t).Do(harness.Request{Method: op.method, Path: op.path, Key: key, Form: form(append(op.base, "email", "0", "email", "1")...)}), "email")
		})
		t.Run(op.method+" bad encoding", func(t *testing.T) {
			wantField(t, e.in(t).Do(harness.Request{Method: op.method, Path: op.path, Key: key, Body: "email=%zz",
				Headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}), "body")
		})
		t.Run(op.method+" multipart with an empty body", func(t *testing.T) {
			want(t, e.in(t).Do(harness.Request{Method: op.method, Path: op.path, Key: key,
				Headers: map[string]string{"Content-Type": "multipart/form-data"}}), http.StatusUnsupportedMediaType)
		})
	}
	got := want(t, e.Do(harness.Request{Path: path, Key: key}), http.StatusOK)["data"].(map[string]any)
	wantUntouched(t, got)
	var n int
	if err := e.DB.Get(&n, `SELECT count(*) FROM websites`); err != nil || n != 1 {
		t.Fatalf("%d websites after refused stores (err %v)", n, err)
	}
}
