package pages_test

import (
	"html"
	"net/http"
	"strings"
	"testing"
)

// The period menu's arrows move a period of the menu by its name (pages/period.Arrow): the
// year to date to the whole year before, the month to date to the whole month before, the
// last 28 days of February by 28 days; a custom range by its shape.
func TestPeriodArrowsByName(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "arrows.example")
	e.seedMonth(id)
	b := e.browser()
	for _, c := range []struct{ query, prev string }{
		{"from=2026-01-01&to=2026-03-20", "from=2025-01-01&to=2025-12-31"}, // year to date
		{"from=2026-03-01&to=2026-03-20", "from=2026-02-01&to=2026-02-28"}, // month to date
		{"from=2026-02-01&to=2026-02-28", "from=2026-01-01&to=2026-01-31"}, // last month
		{"from=2026-03-14&to=2026-03-20", "from=2026-03-07&to=2026-03-13"}, // last 7 days
		{"from=2026-01-01&to=2026-01-31", "from=2025-12-01&to=2025-12-31"}, // a custom month
	} {
		p := b.get("/stats/arrows.example?" + c.query)
		wantStatus(t, c.query, p, http.StatusOK)
		want := `href="/stats/arrows.example?` + c.prev + `" data-key="ArrowLeft"`
		if !strings.Contains(html.UnescapeString(p.body), want) {
			t.Errorf("%s: no arrow back %s", c.query, want)
		}
	}
}
