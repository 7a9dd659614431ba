package pages_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// The add form offers to drop the tracking parameters, ticked by default; ticked, it adds each
// one the owner did not type to exclude_params. The API's default stays "drop nothing".
func TestAddFormDropsTrackingParameters(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	b := e.browser().signIn(owner)

	home := b.get("/")
	if !strings.Contains(home.body, `name="drop_tracking" value="1" checked`) {
		t.Fatalf("the add form does not offer to drop tracking parameters, ticked:\n%s", home.body)
	}
	if !strings.Contains(home.body, "One name per line, for example <code>utm_source</code>") ||
		!strings.Contains(home.body, "for example <code>203.0.113.7</code>") {
		t.Error("the exclusion lists do not say one entry per line with an example")
	}

	p := b.post("/websites", websiteForm("domain", "ticked.example", "drop_tracking", "1", "exclude_params", "session\r\nfbclid"))
	wantStatus(t, "add ticked", p, http.StatusSeeOther)
	p = b.post("/websites", websiteForm("domain", "unticked.example", "exclude_params", "session"))
	wantStatus(t, "add unticked", p, http.StatusSeeOther)
	e.Site(owner.Key, "api.example")

	want := map[string]any{
		"ticked.example":   "session\nfbclid\nutm_source\nutm_medium\nutm_campaign\nutm_term\nutm_content\nutm_id\ngclid\nmsclkid\nmc_eid\nref",
		"unticked.example": "session",
		"api.example":      nil,
	}
	for domain, params := range want {
		site, err := e.Repo.WebsiteByDomain(context.Background(), domain)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.apiWebsite(owner, site.ID)["exclude_params"]; got != params {
			t.Errorf("%s: exclude_params %#v, want %#v", domain, got, params)
		}
	}

	// A refusal keeps what the owner chose and typed; line numbers are those of the typed text.
	p = b.post("/websites", websiteForm("domain", "bad.example", "exclude_params", "ok\nbad name"))
	wantStatus(t, "refused", p, http.StatusUnprocessableEntity)
	if strings.Contains(p.body, `name="drop_tracking" value="1" checked`) || !strings.Contains(p.body, "line 2 (&#34;bad name&#34;)") {
		t.Errorf("the refused form lost the owner's choice or named the wrong line:\n%s", p.body)
	}
	if strings.Contains(b.get("/websites/1/edit").body, "drop_tracking") {
		t.Error("the edit form offers the add form's option")
	}
}
