package pages_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// The dashboard's Top pages show each page's time on page and scroll depth, "–" where no
// engagement came for it.
func TestTopPagesEngagement(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "example.com")
	const day = "2026-03-02"
	e.Count(id, day, "page", map[string]int64{"/read": 4, "/glance": 2})
	e.Count(id, day, "engaged_visit", map[string]int64{"/read": 2})
	e.Count(id, day, "engaged_ms", map[string]int64{"/read": 146_000})
	e.Count(id, day, "scroll_visit", map[string]int64{"/read": 2})
	e.Count(id, day, "scroll_sum", map[string]int64{"/read": 130})
	p := e.browser().get("/stats/example.com?from=" + day + "&to=" + day)
	wantStatus(t, "dashboard", p, http.StatusOK)
	card := regexp.MustCompile(`(?s)<section class="card top" aria-labelledby="top-page">.*?</section>`).FindString(p.body)
	if !strings.Contains(card, "Time on page") || !strings.Contains(card, "Scroll depth") {
		t.Fatalf("no engagement columns in the top pages:\n%s", card)
	}
	cells := regexp.MustCompile(`<td class="num">([^<]*)</td>`).FindAllStringSubmatch(card, -1)
	var got []string
	for _, c := range cells {
		got = append(got, c[1])
	}
	if want := "4 | 1 min 13 s | 65\u202f% | 2 | – | –"; strings.Join(got, " | ") != want {
		t.Fatalf("top pages' numbers %q, want %q", strings.Join(got, " | "), want)
	}
}
