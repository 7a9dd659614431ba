package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit/harness"
)

// clientFixture is a recording of scripts/plausible-clients.sh (tools/plausiblerecord): the
// requests a Plausible API client nobody here wrote made, and this service's answers.
type clientFixture struct {
	Client string `json:"client"`
	Calls  []struct {
		Call      string `json:"call"`
		Outcome   string `json:"outcome"`
		Exchanges []struct {
			Method   string            `json:"method"`
			Path     string            `json:"path"`
			Query    string            `json:"query"`
			Headers  map[string]string `json:"headers"`
			Body     string            `json:"body"`
			Status   int               `json:"status"`
			Response json.RawMessage   `json:"response"`
		} `json:"exchanges"`
	} `json:"calls"`
}

// The recordings, in the order they were made: one service and one key served both.
var clientFixtures = []string{"go-plausible.json", "provider-plausible.json"}

// TestPlausibleClients replays what go-plausible and provider-plausible sent
// (docs/plausible-sites.md, "Clients run against it") against a fresh service, byte for byte
// but for the key, and checks that each answer has the recorded status and the recorded
// shape (the same members and types; an error the same sentence), and is one openapi.yaml
// declares (harness.Do checks that). The requests run in their recorded order, as the state
// they build (sites, goals, links, events) is what later answers read.
func TestPlausibleClients(t *testing.T) {
	// The recording trusted its loopback proxy's X-Forwarded-For, as a server behind one does:
	// go-plausible gives each event's visitor address so.
	e := newEnv(t, func(c *app.Config) { c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("192.0.2.1/32")} })
	key := e.User("clients@example.com").Key
	for _, name := range clientFixtures {
		raw, err := os.ReadFile(filepath.Join("testdata", "plausible-clients", name))
		if err != nil {
			t.Fatal(err)
		}
		var fix clientFixture
		if err := json.Unmarshal(raw, &fix); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(fix.Calls) == 0 {
			t.Fatalf("%s records no call", name)
		}
		pendingEvents := false
		for _, call := range fix.Calls {
			for i, x := range call.Exchanges {
				label := fmt.Sprintf("%s %s (exchange %d): %s %s?%s", fix.Client, call.Call, i, x.Method, x.Path, x.Query)
				if x.Path != "/api/event" && pendingEvents { // what the stats read was counted
					if err := e.App.Pipeline.Flusher.Flush(context.Background()); err != nil {
						t.Fatal(err)
					}
					pendingEvents = false
				}
				pendingEvents = pendingEvents || x.Path == "/api/event"
				res := e.Do(replayed(x.Method, x.Path, x.Query, x.Body, x.Headers, key))
				if res.Status != x.Status {
					t.Errorf("%s: status %d, recorded %d: %s", label, res.Status, x.Status, res.Body)
					continue
				}
				checkReplayedAnswer(t, label, x.Status, x.Response, res.Body)
			}
		}
	}
}

// replayed is a recorded request as the harness sends it, with this test's key.
func replayed(method, path, query, body string, headers map[string]string, key string) harness.Request {
	r := harness.Request{Method: method, Path: path, Body: body, Headers: map[string]string{}}
	if query != "" {
		r.Path += "?" + query
	}
	for k, v := range headers {
		if k == "Authorization" {
			r.Key = key
			continue
		}
		r.Headers[k] = v
	}
	return r
}

// checkReplayedAnswer compares an answer with the recorded one: an error's sentence exactly,
// a bare number as a number go-plausible's strconv.Atoi reads, anything else by shape.
func checkReplayedAnswer(t *testing.T, label string, status int, recorded json.RawMessage, got []byte) {
	t.Helper()
	var want, have any
	if err := json.Unmarshal(recorded, &want); err != nil {
		t.Fatalf("%s: recorded answer: %v", label, err)
	}
	if s, isText := want.(string); isText { // a body that was not JSON, kept as text
		if strings.TrimSpace(string(got)) != strings.TrimSpace(s) {
			t.Errorf("%s: answer %q, recorded %q", label, got, s)
		}
		return
	}
	if err := json.Unmarshal(got, &have); err != nil {
		t.Errorf("%s: answer is not JSON: %s", label, got)
		return
	}
	if _, isNumber := want.(float64); isNumber {
		if _, err := strconv.Atoi(string(got)); err != nil {
			t.Errorf("%s: answer %q is not a bare integer: %v", label, got, err)
		}
		return
	}
	if status >= 400 {
		w, _ := want.(map[string]any)
		h, _ := have.(map[string]any)
		if len(h) != 1 || h["error"] != w["error"] {
			t.Errorf("%s: error %s, recorded %s", label, got, recorded)
		}
		return
	}
	if ws, hs := shape(want), shape(have); ws != hs {
		t.Errorf("%s: answer's shape\n%s\nrecorded\n%s\n(answer %s)", label, hs, ws, got)
	}
}

// shape is a JSON value's members and types, not its values: an object's keys with their
// shapes, an array's distinct element shapes (empty or not).
func shape(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = strconv.Quote(k) + ":" + shape(x[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		var elems []string
		for _, el := range x {
			if s := shape(el); !slices.Contains(elems, s) {
				elems = append(elems, s)
			}
		}
		sort.Strings(elems)
		return "[" + strings.Join(elems, "|") + "]"
	case float64:
		return "number"
	case string:
		return "string"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// TestPlausibleClientsShape: the comparison can fail (a missing member, a type changed, an
// element of another shape), so that the replay checks something.
func TestPlausibleClientsShape(t *testing.T) {
	base := `{"sites":[{"domain":"a.example","timezone":"UTC"}],"meta":{"after":null,"limit":100}}`
	for _, other := range []string{
		`{"sites":[{"domain":"a.example"}],"meta":{"after":null,"limit":100}}`,
		`{"sites":[{"domain":"a.example","timezone":"UTC"}],"meta":{"after":null,"limit":"100"}}`,
		`{"sites":[],"meta":{"after":null,"limit":100}}`,
		`{"sites":[{"domain":"a.example","timezone":"UTC"},{"domain":1,"timezone":"UTC"}],"meta":{"after":null,"limit":100}}`,
		`{"sites":[{"domain":"a.example","timezone":"UTC"}],"meta":{"after":"Mw","limit":100}}`,
	} {
		var a, b any
		if err := json.Unmarshal([]byte(base), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(other), &b); err != nil {
			t.Fatal(err)
		}
		if shape(a) == shape(b) {
			t.Errorf("%s has the shape of %s: %s", other, base, shape(a))
		}
	}
	var a, b any
	_ = json.Unmarshal([]byte(`{"x":[1,2],"y":"a"}`), &a)
	_ = json.Unmarshal([]byte(`{"y":"b","x":[3]}`), &b)
	if shape(a) != shape(b) {
		t.Errorf("same shape told apart: %s, %s", shape(a), shape(b))
	}
}
