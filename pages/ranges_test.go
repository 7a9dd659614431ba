package pages_test

import (
	"net/http"
	"strings"
	"testing"
)

// A date outside years 1..9999, or a dashboard range whose period before it would leave them,
// is a readable 422 page with a link back to the dashboard, never a 500.
func TestDatesAtTheEdgesOfTheCalendar(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	e.Site(owner.Key, "example.com")
	b := e.browser()
	for _, c := range []struct {
		path, field string
		status      int
	}{
		{"/stats/example.com?from=0001-01-01&to=0001-01-10", "from", http.StatusUnprocessableEntity}, // compared with year 0
		{"/stats/example.com?from=0000-12-01&to=0001-01-10", "from", http.StatusUnprocessableEntity},
		{"/stats/example.com?to=0001-01-05", "to", http.StatusUnprocessableEntity}, // its 30 days start in year 0
		{"/stats/example.com/page?from=0000-01-01&to=0000-01-02", "from", http.StatusUnprocessableEntity},
		{"/stats/example.com/export?name=page&from=2026-01-01&to=0000-01-02", "to", http.StatusUnprocessableEntity},
		{"/stats/example.com?from=0001-03-01&to=0001-03-10", "", http.StatusOK},
		{"/stats/example.com/page?from=0001-01-01&to=0001-01-10", "", http.StatusOK}, // no comparison there
		{"/stats/example.com?from=9999-12-01&to=9999-12-31", "", http.StatusOK},
		{"/stats/example.com/export?name=page&from=9999-12-31&to=9999-12-31", "", http.StatusOK},
	} {
		p := b.get(c.path)
		if p.status != c.status {
			t.Errorf("%s: %d, want %d\n%.300s", c.path, p.status, c.status, p.body)
			continue
		}
		if c.status == http.StatusOK {
			continue
		}
		// The error page lists the refusal; the dashboard's picker says it beside the field,
		// its presets leading back to the dashboard.
		refused := strings.Contains(p.body, "<li>"+c.field+" ") || strings.Contains(p.body, `id="`+c.field+`-error">`+c.field+" ")
		if !refused || !strings.Contains(p.body, `href="/stats/example.com`) {
			t.Errorf("%s: no refusal of %s or no link back to the dashboard:\n%s", c.path, c.field, p.body)
		}
	}
}
