package ingest_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lib/pq"

	"github.com/analytics-service/analytics/app"
)

// What a stranger sends is stored without credentials and without what identifies a person,
// wherever it goes (docs/tracker.md, "What is redacted"): the page (its path's segments, its
// query, its fragment when the fragment is part of the page), the realtime view's page and
// referrer, the referrer statistic, event names, and the url property however its key is
// spelled. On main only property keys and values were redacted, and only the key "url" lost
// its query.
func TestCredentialsAndIdentifyingTextAreRedacted(t *testing.T) {
	clock := newClock(at("2026-03-04", "15:20:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now})
	id := e.site("cred.test")
	send := func(client, b string) {
		t.Helper()
		e.accepted(hit{body: b, remote: client + ":5000"})
	}
	// An OAuth callback of a hash-routed app: the code in the query, the implicit grant's
	// tokens in the fragment.
	send("198.51.100.1", `{"page":"https://cred.test/cb?code=SECRET1&next=%2Fhome#access_token=SECRET2&token_type=bearer&id_token=SECRET3","hash":true}`)
	send("198.51.100.2", `{"n":"pageview","u":"https://cred.test/u/jane@example.org/x","d":"cred.test","r":"https://mail.5551234567.example/"}`)
	send("198.51.100.3", `{"page":"https://cred.test/u/jane%40example.org/y?email=jane%40example.org&Access_Token=SECRET4&tab=2"}`)
	send("198.51.100.4", `{"page":"https://cred.test/orders/0170%20123%204567","referrer":"https://news.example/"}`)
	send("198.51.100.5", `{"n":"pageview","u":"https://cred.test/app#/reset?token=SECRET5&user=jane@example.org","d":"cred.test","h":1}`)
	send("198.51.100.6", `{"n":"Signup jane@example.org","u":"https://cred.test/s","d":"cred.test",
		"p":{"URL":"https://cred.test/dl?code=SECRET6","url ":"https://cred.test/f#SECRET7"," Url":"https://x.test/?sig=SECRET8","link":"plain"}}`)

	counted := e.stats(id)
	pages := func(name string) []string {
		var out []string
		for v := range counted[name] {
			out = append(out, v)
		}
		slices.Sort(out)
		return out
	}
	wantPages := []string{"/app#/reset?user=(redacted)", "/cb?next=%2Fhome#token_type=bearer", "/orders/(redacted)",
		"/u/(redacted)/x", "/u/(redacted)/y?email=(redacted)&tab=2"}
	if got := pages("page"); !slices.Equal(got, wantPages) {
		t.Fatalf("pages\n%q\nwant\n%q", got, wantPages)
	}
	wantLanding := append(slices.Clone(wantPages[:3]), "/s", wantPages[3], wantPages[4]) // the event's visit too
	if got := pages("landing_page"); !slices.Equal(got, wantLanding) {
		t.Fatalf("landing pages\n%q\nwant\n%q", got, wantLanding)
	}
	if got := pages("referrer"); !slices.Equal(got, []string{"", "(redacted)", "news.example"}) {
		t.Fatalf("referrers %q", got)
	}
	if counted["event"]["(redacted)::"] != 1 {
		t.Fatalf("events %v, want the event's name redacted", counted["event"])
	}
	props, _ := e.propRows(id)
	slices.Sort(props)
	wantProps := []string{" Url=https://x.test/", "URL=https://cred.test/dl", "link=plain", "url =https://cred.test/f"}
	if !slices.Equal(props, wantProps) {
		t.Fatalf("props %q, want %q", props, wantProps)
	}

	// Nothing of it anywhere: counters, rows, the realtime view.
	var stored []string
	for _, q := range []string{
		`SELECT value FROM stats`,
		`SELECT array_to_string(pages, ' ') || ' ' || array_to_string(events, ' ') || ' ' || array_to_string(event_names, ' ') || ' ' ||
			coalesce(array_to_string(props, ' '), '') || ' ' || landing_page || ' ' || exit_page || ' ' || referrer FROM visit_rows`,
		`SELECT page || ' ' || referrer FROM realtime_recent`,
	} {
		var texts []string
		if err := e.DB.Select(&texts, q); err != nil {
			t.Fatal(err)
		}
		stored = append(stored, texts...)
	}
	all := strings.Join(stored, "\n")
	for _, secret := range []string{"SECRET", "jane", "5551234567", "170 123 4567", "0170%20123"} {
		if strings.Contains(all, secret) {
			t.Errorf("%q is stored:\n%s", secret, all)
		}
	}
	var recent pq.StringArray
	if err := e.DB.Get(&recent, `SELECT array_agg(page ORDER BY page) FROM realtime_recent`); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(recent, "/u/(redacted)/x") {
		t.Fatalf("realtime pages %q", recent)
	}
}

// A website's excluded parameters and the credential parameters are dropped together (an
// escaped name too); a query with neither, on a website that excludes none, stays exactly as
// sent, && included.
func TestCredentialParamsGoWithExcludedOnes(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	excluding := e.site("params.test", "exclude_params", "utm_source")
	plain := e.site("plain.test")
	for i, page := range []string{"params.test/a?utm_source=x&token=SECRET&b=1", "params.test/d?%74oken=SECRET&z=3",
		"plain.test/c?x=1&&y=2", "plain.test/e?SID=SECRET"} {
		e.accepted(hit{body: body("https://"+page, "", ""), remote: fmt.Sprintf("198.51.100.%d:5000", i+1)})
	}
	var got []string
	for _, id := range []int64{excluding, plain} {
		for v := range e.stats(id)["page"] {
			got = append(got, v)
		}
	}
	slices.Sort(got)
	if want := []string{"/a?b=1", "/c?x=1&&y=2", "/d?z=3", "/e"}; !slices.Equal(got, want) {
		t.Fatalf("pages %q, want %q", got, want)
	}
}
