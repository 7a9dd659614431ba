package pages_test

import (
	"net/http"
	"strings"
	"testing"
)

// The Sources panel: one tab shown at a time, Channels first, each value a link that adds its
// filter, utm_campaign another name for the campaign tab, an unknown tab a readable 422; the
// days before the website counted the new names are said to lack them.
func TestSourcesPanelTabs(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "tabs.example")
	const day = "2026-03-20"
	e.Count(id, day, "pageview", map[string]int64{day: 9})
	e.Count(id, "2026-03-10", "pageview", map[string]int64{"2026-03-10": 4})
	e.Count(id, day, "channel", map[string]int64{"Email": 3, "Organic Search": 2})
	e.Count(id, day, "source", map[string]int64{"Newsletter": 3, "Google": 2})
	e.Count(id, day, "utm_medium", map[string]int64{"email": 3})
	e.Count(id, day, "campaign", map[string]int64{"spring": 3})
	b := e.browser()
	const dash = "/stats/tabs.example?from=2026-03-01&to=2026-03-20"

	panel := func(query string) string {
		t.Helper()
		p := b.get(dash + query)
		wantStatus(t, query, p, http.StatusOK)
		start := strings.Index(p.body, `id="sources"`)
		end := strings.Index(p.body[max(start, 0):], "</section>")
		if start < 0 || end < 0 {
			t.Fatalf("%s: no Sources panel:\n%s", query, p.body)
		}
		return p.body[start : start+end]
	}
	cases := []struct {
		query, current string
		want, notWant  []string
	}{
		{"", "Channels", []string{"Organic Search", "filter%5Bchannel%5D=Email", "Sources, channels and UTM tags other than the campaign are counted from"}, []string{"Newsletter", "spring"}},
		{"&sources=source", "Sources", []string{"Newsletter", "filter%5Bsource%5D=Google"}, []string{"Organic Search"}},
		{"&sources=utm_medium", "UTM medium", []string{"filter%5Butm_medium%5D=email"}, []string{"Newsletter"}},
		{"&sources=utm_campaign", "UTM campaign", []string{"filter%5Bcampaign%5D=spring"}, []string{"Newsletter", "are counted from"}},
		{"&sources=campaign&filter%5Butm_medium%5D=email", "UTM campaign", nil, []string{"Newsletter"}},
		{"&sources=utm_term", "UTM term", []string{"Nothing counted in this range."}, []string{"spring"}},
	}
	for _, c := range cases {
		got := panel(c.query)
		if !strings.Contains(got, `aria-current="true">`+c.current+`</a>`) {
			t.Errorf("%q: tab %q is not the current one:\n%s", c.query, c.current, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q: %q missing:\n%s", c.query, w, got)
			}
		}
		for _, w := range c.notWant {
			if strings.Contains(got, w) {
				t.Errorf("%q: %q shown, which another tab lists:\n%s", c.query, w, got)
			}
		}
		// Every tab keeps the range: the tabs' links carry from and to.
		if strings.Count(got, "from=2026-03-01") < 7 {
			t.Errorf("%q: the tabs do not keep the range:\n%s", c.query, got)
		}
	}
	// The notice names the website's first day with the new names, and goes when no counted
	// day of the range is before it.
	e.exec(`UPDATE websites SET sources_from = '2026-03-15' WHERE id = $1`, id)
	if got := panel(""); !strings.Contains(got, "counted from 15 Mar 2026") {
		t.Errorf("the notice does not name 15 Mar 2026:\n%s", got)
	}
	e.exec(`UPDATE websites SET sources_from = '2026-03-05' WHERE id = $1`, id)
	if got := panel(""); strings.Contains(got, "counted from") {
		t.Errorf("a range with no counted day before sources_from has the notice:\n%s", got)
	}

	bad := b.get(dash + "&sources=colour")
	wantStatus(t, "an unknown tab", bad, http.StatusUnprocessableEntity)
	if !strings.Contains(bad.body, "sources") || !strings.Contains(bad.body, "utm_medium") {
		t.Errorf("an unknown tab's page does not say which exist:\n%s", bad.body)
	}
}

// The CSV export takes every new name; utm_campaign exports campaign's counters.
func TestExportOfSourcesAndChannels(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "csvsources.example")
	e.Count(id, "2026-03-10", "channel", map[string]int64{"Email": 3, "Organic Search": 2})
	e.Count(id, "2026-03-10", "campaign", map[string]int64{"spring": 4})
	e.Count(id, "2026-03-10", "utm_content", map[string]int64{"=hero": 1})
	b := e.browser()
	for name, want := range map[string]string{
		"channel":      "value,count\r\nEmail,3\r\nOrganic Search,2\r\n",
		"utm_campaign": "value,count\r\nspring,4\r\n",
		"utm_content":  "value,count\r\n'=hero,1\r\n",
		"source":       "value,count\r\n",
	} {
		p := b.get("/stats/csvsources.example/export?name=" + name + "&from=2026-03-01&to=2026-03-31")
		wantStatus(t, name, p, http.StatusOK)
		if p.body != want {
			t.Errorf("export of %s: %q, want %q", name, p.body, want)
		}
	}
}
