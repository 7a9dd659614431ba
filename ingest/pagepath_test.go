package ingest_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/importer/plausible"
	"github.com/analytics-service/analytics/importer/plausible/plausibletest"
)

// A page has one spelling, /blog/café, however it arrives: escaped as browsers send it (in
// either case of hex), unescaped as a server-side sender may, or from a Plausible export. The
// imported days and the collected one make one row of the list, counts summed, and the
// escapes that mean something else (%2F) stay.
func TestPagePathsHaveOneSpelling(t *testing.T) {
	clock := newClock(at("2026-03-04", "10:00:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now})
	id := e.site("site.test")
	export := plausibletest.Sample(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), 2) // "/blog/café", 50 a day
	zip := export.Zip()
	if _, err := plausible.Import(context.Background(), e.Repo, plausible.Website{ID: id, Domain: "site.test"},
		bytes.NewReader(zip), int64(len(zip)), plausible.Options{}); err != nil {
		t.Fatal(err)
	}
	for i, path := range []string{"/blog/caf%C3%A9", "/blog/caf%c3%a9", "/blog/café", "/a%2fb", "/a%2Fb"} {
		clock.Add(time.Minute)
		e.send(hit{body: pageHit("site.test", path, ""), remote: fmt.Sprintf("198.51.100.%d:1", i+1)})
	}
	clock.Add(time.Hour)
	e.flush()
	pages := e.apiStats(id, "page", "2026-03-01", "2026-03-04")
	if pages["/blog/café"] != 103 || pages["/a%2Fb"] != 2 {
		t.Errorf("pages %v: want /blog/café 103 (100 imported, 3 collected), /a%%2Fb 2", pages)
	}
	for value := range pages {
		if value == "/blog/caf%C3%A9" || value == "/a%2fb" {
			t.Errorf("a second spelling is listed: %q", value)
		}
	}
	if landing := e.apiStats(id, "landing_page", "2026-03-04", "2026-03-04"); landing["/blog/café"] != 3 {
		t.Errorf("landing pages %v: want /blog/café 3", landing)
	}
}
