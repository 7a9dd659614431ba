package pages_test

import (
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/repository"
)

// The dashboard's header links to the website's settings for those who may change them; the
// Goals panel is shown without goals, inviting them to add one (the others are told who can);
// a rate or mean with nothing to divide is "–", never "0%".
func TestDashboardSettingsGoalsAndDashes(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "layout.example")
	e.seedMonth(id) // counters only: visitors and pageviews, no visit
	viewer, editor := e.UserWithPassword("viewer@example.com"), e.UserWithPassword("editor@example.com")
	e.Member(id, owner, viewer, repository.RoleViewer)
	e.Member(id, owner, editor, repository.RoleEditor)
	settings := fmt.Sprintf(`/websites/%d/edit">Settings<span`, id) // the header's link, not the Goals panel's
	card := func(body, label string) string {
		m := regexp.MustCompile(label + `</div>\s*<div class="number">([^<]*)</div>`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no %s card", label)
		}
		return html.UnescapeString(m[1])
	}
	for _, c := range []struct {
		who      string
		settings bool
	}{{"owner@example.com", true}, {"editor@example.com", true}, {"viewer@example.com", false}} {
		t.Run(c.who, func(t *testing.T) {
			var b *browser
			switch c.who {
			case "owner@example.com":
				b = e.browser().signIn(owner)
			case "editor@example.com":
				b = e.browser().signIn(editor)
			default:
				b = e.browser().signIn(viewer)
			}
			p := b.get("/stats/layout.example")
			wantStatus(t, "dashboard", p, http.StatusOK)
			if got := strings.Contains(p.body, settings); got != c.settings {
				t.Errorf("settings link %s: %v, want %v", settings, got, c.settings)
			}
			if !strings.Contains(p.body, `id="top-goals"`) || !strings.Contains(p.body, "No goals yet") {
				t.Error("no Goals panel without goals")
			}
			if got := strings.Contains(p.body, fmt.Sprintf(`/websites/%d/edit#add-goal">Add a goal</a>`, id)); got != c.settings {
				t.Errorf("the Goals panel's link to add one: %v, want %v", got, c.settings)
			}
			for _, label := range []string{"Views per visit", "Bounce rate", "Visit duration"} {
				if got := card(p.body, label); got != "–" {
					t.Errorf("%s with no visit: %q, want –", label, got)
				}
			}
			if got := card(p.body, "Unique visitors"); got == "–" || got == "0" {
				t.Errorf("visitors %q: the data has some", got)
			}
		})
	}
}
