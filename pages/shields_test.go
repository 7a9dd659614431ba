package pages_test

import (
	"fmt"
	"net/http"
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
	// Empty fields clear the lists and put the retention back to FACTS_RETENTION.
	wantStatus(t, "clear", b.post(edit, websiteForm()), http.StatusSeeOther)
	got = e.apiWebsite(owner, id)
	for _, k := range []string{"block_countries", "block_pages", "allowed_hostnames", "retention_days"} {
		if got[k] != nil {
			t.Errorf("cleared %s = %#v", k, got[k])
		}
	}
}
