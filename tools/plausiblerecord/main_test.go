package main

import (
	"bytes"
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecorder(t *testing.T) {
	service := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("Authorization") != "Bearer secret" || string(body) != "domain=a.example" {
			w.WriteHeader(http.StatusBadRequest)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"domain":"a.example"}`)
	}))
	defer service.Close()
	base, _ := url.Parse(service.URL)
	out := filepath.Join(t.TempDir(), "fixture.json")
	proxy := httptest.NewServer(newRecorder(base, "test@1", out))
	defer proxy.Close()

	post := func(path, contentType, body string, header map[string]string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, proxy.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	post("/_record/call?name=Create", "text/plain", "", nil)
	if res := post("/api/v1/sites?x=1", "application/x-www-form-urlencoded", "domain=a.example",
		map[string]string{"Authorization": "Bearer secret", "User-Agent": "ua", "Accept-Encoding": "gzip"}); res.StatusCode != http.StatusOK {
		t.Fatalf("forwarded: %d", res.StatusCode)
	}
	post("/_record/outcome?text="+url.QueryEscape("ok: a.example"), "text/plain", "", nil)

	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "secret") {
		t.Errorf("the key was written: %s", raw)
	}
	var fix Fixture
	if err := json.Unmarshal(raw, &fix); err != nil {
		t.Fatal(err)
	}
	if fix.Client != "test@1" || len(fix.Calls) != 1 || fix.Calls[0].Name != "Create" || fix.Calls[0].Outcome != "ok: a.example" || len(fix.Calls[0].Exchanges) != 1 {
		t.Fatalf("fixture %s", raw)
	}
	x := fix.Calls[0].Exchanges[0]
	var answer bytes.Buffer
	if err := json.Compact(&answer, x.Response); err != nil {
		t.Fatal(err)
	}
	if x.Method != http.MethodPost || x.Path != "/api/v1/sites" || x.Query != "x=1" || x.Body != "domain=a.example" || x.Status != http.StatusOK ||
		answer.String() != `{"domain":"a.example"}` || x.Headers["Authorization"] != "Bearer KEY" || x.Headers["User-Agent"] != "ua" || x.Headers["Accept-Encoding"] != "" {
		t.Errorf("exchange %+v", x)
	}
}

func TestTrim(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.go"), filepath.Join(dir, "out.go")
	src := `package clients

import (
	"context"
	"net/http"

	kube "sigs.k8s.io/controller-runtime/pkg/client"
	"k8s.io/apimachinery/pkg/types"
)

// Config is kept.
type Config struct{ BaseURL string }

type tracker struct{ c kube.Client }

func Get(ctx context.Context, c kube.Client) error { return c.Get(ctx, types.NamespacedName{}, nil) }

func (t *tracker) Track() kube.Client { return t.c }

func Call(cfg Config) (*http.Response, error) { return http.Get(cfg.BaseURL + "/api/v1/sites") }
`
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := trim(in, out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), out, got, 0); err != nil {
		t.Fatalf("trimmed file does not parse: %v\n%s", err, got)
	}
	text := string(got)
	for _, gone := range []string{"k8s.io", "sigs.k8s.io", `"context"`, "tracker", "func Get"} {
		if strings.Contains(text, gone) {
			t.Errorf("trimmed file still has %q:\n%s", gone, text)
		}
	}
	for _, kept := range []string{`"net/http"`, "type Config struct", `return http.Get(cfg.BaseURL + "/api/v1/sites")`} {
		if !strings.Contains(text, kept) {
			t.Errorf("trimmed file lost %q:\n%s", kept, text)
		}
	}
}
