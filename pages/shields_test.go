package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The settings page sets the shields and the retention under the API's rules: refusals are
// shown beside their fields with the API's words, and nothing is saved then.
func TestShieldsOnTheSettingsPage(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	b := e.browser().signIn(owner)
	id := e.Site(owner.Key, "shields.example")
	edit := fmt.Sprintf("/websites/%d/edit", id)
	page := b.get(edit)
	wantStatus(t, "edit page", page, http.StatusOK)
	for _, want := range []string{`name="block_countries"`, `name="block_pages"`, `name="allowed_hostnames"`,
		`name="retention_days"`, "No country is blocked.", "empty: 400 (the service"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the settings page has no %s", want)
		}
	}
	p := b.post(edit, websiteForm("block_countries", "ru\ncn", "block_pages", "/admin/*", "allowed_hostnames", "shields.example",
		"retention_days", "60"))
	wantStatus(t, "save the shields", p, http.StatusSeeOther)
	got := e.apiWebsite(owner, id)
	for k, v := range map[string]any{"block_countries": "RU\nCN", "block_pages": "/admin/*", "allowed_hostnames": "shields.example", "retention_days": 60.0} {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
	if page = b.get(edit); !strings.Contains(page.body, "Blocked now: Russia, China.") || !strings.Contains(page.body, `value="60"`) {
		t.Errorf("the settings page does not show what is set:\n%s", page.body)
	}

	bad := []struct{ field, value, says string }{
		{"block_countries", "RU\nZZ", `line 2 (&#34;ZZ&#34;) is not a country code`},
		{"block_pages", "<script>alert(1)</script>", `line 1 (&#34;&lt;script&gt;alert(1)&lt;/script&gt;&#34;) must start with /`},
		{"block_pages", strings.Repeat("/p\n", 101), "has 101 entries: at most 100"},
		{"allowed_hostnames", "*.example.com/x", "is not a host name"},
		{"retention_days", "20", "must be 0 (as long as the service keeps rows: FACTS_RETENTION, 400 days) or 32 to 400 days"},
		{"retention_days", "a month", "must be a whole number of days"},
	}
	for _, c := range bad {
		p := b.post(edit, websiteForm("block_countries", "RU\nCN", "block_pages", "/admin/*", "allowed_hostnames", "shields.example", "retention_days", "60", c.field, c.value))
		wantStatus(t, c.field+" "+c.value, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.body, c.says) || !strings.Contains(p.body, `id="`+c.field+`-error"`) {
			t.Errorf("%s %q: the page does not say %q beside the field", c.field, c.value, c.says)
		}
		if strings.Contains(p.body, "<script>alert(1)") {
			t.Fatalf("%s: markup typed into the form came back as markup", c.field)
		}
		if after := e.apiWebsite(owner, id); fmt.Sprint(after) != fmt.Sprint(got) {
			t.Errorf("%s %q: a refused form changed the website:\n%v\n%v", c.field, c.value, got, after)
		}
	}
	// A refused list is not what is blocked: its hint names the countries as typed, not saved.
	p = b.post(edit, websiteForm("block_countries", "DE\nZZ"))
	wantStatus(t, "a refused list", p, http.StatusUnprocessableEntity)
	if strings.Contains(p.body, "Blocked now: Germany") || !strings.Contains(p.body, "Not saved: the list names Germany.") {
		t.Errorf("the hint of a refused list:\n%s", p.body)
	}
	// Empty fields clear the lists and put the retention back to FACTS_RETENTION.
	wantStatus(t, "clear", b.post(edit, websiteForm()), http.StatusSeeOther)
	got = e.apiWebsite(owner, id)
	for _, k := range []string{"block_countries", "block_pages", "allowed_hostnames", "retention_days"} {
		if got[k] != nil {
			t.Errorf("cleared %s = %#v", k, got[k])
		}
	}
}

// The settings page deletes a range of stats once the domain is typed, refuses anything else
// beside its field with nothing deleted, and the dashboard then notes the deleted range.
func TestDeleteStatsOnTheSettingsPage(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	b := e.browser().signIn(owner)
	id := e.Site(owner.Key, "reset.example")
	for _, day := range []string{"2026-03-10", "2026-03-11", "2026-03-12"} {
		e.Count(id, day, "pageview", map[string]int64{day: 4})
		e.Count(id, day, "visit", map[string]int64{day: 2})
	}
	edit := fmt.Sprintf("/websites/%d/edit", id)
	reset := fmt.Sprintf("/websites/%d/reset", id)
	pageviews := func() int {
		var n int
		e.DB.Get(&n, `SELECT coalesce(sum(count), 0) FROM stats WHERE website_id = $1 AND name = 'pageview'`, id)
		return n
	}
	for _, c := range []struct {
		form      map[string]string
		field, is string
	}{
		{map[string]string{"confirm": `"><script>alert(1)</script>`}, "confirm", "must be the website&#39;s domain, reset.example, typed to confirm"},
		{map[string]string{"confirm": "reset.example", "from": "2026-03-11"}, "to", "is needed with the other date"},
		{map[string]string{"confirm": "reset.example", "from": "11.03.2026", "to": "2026-03-11"}, "from", "must be a date YYYY-MM-DD"},
		{map[string]string{"confirm": "reset.example", "from": "2026-03-12", "to": "2026-03-11"}, "from", "must not be after to"},
	} {
		form := url.Values{}
		for k, v := range c.form {
			form.Set(k, v)
		}
		p := b.post(reset, form)
		wantStatus(t, c.field, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.body, c.is) || !strings.Contains(p.body, `id="reset-`+c.field+`-error"`) || !strings.Contains(p.body, "Nothing was deleted") {
			t.Errorf("%v: the page does not say %q beside %s", c.form, c.is, c.field)
		}
		if strings.Contains(p.body, "<script>alert(1)") {
			t.Fatal("the typed confirmation came back as markup")
		}
		if n := pageviews(); n != 12 {
			t.Fatalf("%v: a refused form deleted: %d pageviews left", c.form, n)
		}
	}
	p := b.post(reset, url.Values{"confirm": {"reset.example"}, "from": {"2026-03-11"}, "to": {"2026-03-11"}})
	wantStatus(t, "delete a day", p, http.StatusSeeOther)
	if n := pageviews(); n != 8 {
		t.Fatalf("%d pageviews left, want 8", n)
	}
	if page := b.get(edit + "?notice=stats-deleted"); !strings.Contains(page.body, "The stats were deleted.") {
		t.Error("no notice after the deletion")
	}
	dash := b.get("/stats/reset.example?from=2026-03-01&to=2026-03-20")
	if !strings.Contains(dash.body, "The stats of 11 Mar 2026 (in this range) were deleted on 20 Mar 2026, 12:00 UTC") {
		t.Errorf("the dashboard does not note the deleted day:\n%s", dash.body)
	}
	// A range without it notes it for its comparison only; one far from it, not at all.
	if dash = b.get("/stats/reset.example?from=2026-03-12&to=2026-03-13"); strings.Contains(dash.body, "(in this range)") ||
		!strings.Contains(dash.body, "The stats of 11 Mar 2026 (in the 2 days before) were deleted") {
		t.Error("a range whose comparison holds the deleted day does not say so")
	}
	if dash = b.get("/stats/reset.example?from=2026-03-15&to=2026-03-16"); strings.Contains(dash.body, "were deleted on") {
		t.Error("a range far from the deleted day notes it")
	}
}

// The settings page sets the viewer's traffic alerts under the API's rules, shows each
// address's state, and says when no mail can be sent.
func TestAlertsOnTheSettingsPage(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	b := e.browser().signIn(owner)
	id := e.Site(owner.Key, "alerts.example")
	edit := fmt.Sprintf("/websites/%d/edit", id)
	alerts := fmt.Sprintf("/websites/%d/alerts", id)
	if page := b.get(edit); !strings.Contains(page.body, `id="alerts"`) || !strings.Contains(page.body, "needs <code>SMTP_URL</code> and <code>PUBLIC_URL</code>") {
		t.Fatalf("no alerts card, or no word that mail is off:\n%s", page.body)
	}
	for _, c := range []struct{ field, value, says string }{
		{"spike_threshold", "0", "must be a whole number of visitors from 1 to"},
		{"drop_threshold", "-3", "must be a whole number of visitors from 1 to"},
		{"spike_threshold", "lots", "must be a whole number of visitors (leave it empty"},
		{"addresses", "<script>x</script>", `line 1 (&#34;&lt;script&gt;x&lt;/script&gt;&#34;) is not an e-mail address`},
	} {
		p := b.post(alerts, url.Values{c.field: {c.value}})
		wantStatus(t, c.field+" "+c.value, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.body, c.says) || !strings.Contains(p.body, `id="`+c.field+`-error"`) {
			t.Errorf("%s %q: the page does not say %q beside the field", c.field, c.value, c.says)
		}
	}
	p := b.post(alerts, url.Values{"spike_threshold": {"40"}, "drop_threshold": {""}, "addresses": {"Owner@Example.com"}})
	wantStatus(t, "save", p, http.StatusSeeOther)
	page := b.get(edit + "?notice=alerts-saved")
	for _, want := range []string{"The alerts were saved.", `value="40"`, "owner@example.com: <span class=\"muted\">waiting for its confirmation"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	got, err := e.Repo.Alerts(context.Background(), id, owner.ID)
	if err != nil || got.Spike != 40 || got.Drop != 0 || len(got.Addresses) != 1 {
		t.Fatalf("stored %+v %v", got, err)
	}
}
