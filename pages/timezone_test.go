package pages_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// The forms take a time zone from a searchable list (an input with a datalist, no script
// needed); an unknown one is a readable refusal on the field; the settings page says when a
// change takes effect; the dashboard's today is the website's own. The clock is 2026-03-20
// 12:00 UTC, already 21 March in Pacific/Kiritimati (+14).
func TestWebsiteZoneForms(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	b := e.browser().signIn(owner)

	home := b.get("/")
	if !strings.Contains(home.body, `list="timezones"`) || !strings.Contains(home.body, `<option value="Asia/Kathmandu">`) {
		t.Fatalf("the add form offers no list of zones:\n%s", home.body)
	}
	p := b.post("/websites", websiteForm("domain", "bad.example", "timezone", "Mars/Olympus_Mons"))
	wantStatus(t, "unknown zone", p, http.StatusUnprocessableEntity)
	if !strings.Contains(p.body, `id="timezone-error">must be an IANA time zone name`) || !strings.Contains(p.body, `value="Mars/Olympus_Mons"`) {
		t.Fatalf("unknown zone: no readable refusal:\n%s", p.body)
	}

	wantStatus(t, "add", b.post("/websites", websiteForm("domain", "kiritimati.example", "timezone", "Pacific/Kiritimati")), http.StatusSeeOther)
	id := e.Site(owner.Key, "other.example")
	if got := e.apiWebsite(owner, id)["timezone"]; got != "UTC" {
		t.Errorf("a website without a zone: %v, want the service's TZ", got)
	}
	site, err := e.Repo.WebsiteByDomain(t.Context(), "kiritimati.example")
	if err != nil {
		t.Fatal(err)
	}
	// Its default range ends on its own today: 21 March.
	list := b.get("/stats/kiritimati.example/page")
	wantStatus(t, "list", list, http.StatusOK)
	if !strings.Contains(list.body, `name="to" value="2026-03-21"`) {
		t.Errorf("the list's range does not end on the website's today:\n%s", list.body)
	}

	edit := fmt.Sprintf("/websites/%d/edit", site.ID)
	form := websiteForm("timezone", "Europe/Berlin")
	wantStatus(t, "change zone", b.post(edit, form), http.StatusSeeOther)
	page := b.get(edit)
	// Kiritimati's 21 March ends at 10:00 UTC; Berlin's 22 March starts at 23:00 UTC of 21 March.
	if !strings.Contains(page.body, "The new zone counts from Sun 22 Mar 2026, 00:00 Europe/Berlin") ||
		!strings.Contains(page.body, "days already counted stay as counted") {
		t.Fatalf("the settings page does not say when the change takes effect:\n%s", page.body)
	}
}
