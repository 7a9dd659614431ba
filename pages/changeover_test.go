package pages_test

import (
	"net/http"
	"strings"
	"testing"
)

// The changeover notice is said only where a range holds days counted the old way: not for a
// website added today (its first day counted by visits is its first day), nor for a range
// whose days before the changeover hold no counts.
func TestChangeoverNoticeOnlyWithOldDays(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	b := e.browser().signIn(owner)
	const said = "were counted before visits were recognised"
	dashboard := func(path string) string {
		t.Helper()
		p := b.get(path)
		wantStatus(t, path, p, http.StatusOK)
		return p.body
	}
	added := e.Site(owner.Key, "added-today.example")
	e.visitDays(added, "2026-03-20", "2026-03-20", "2026-03-20") // today, by the test's clock
	if body := dashboard("/stats/added-today.example"); strings.Contains(body, said) {
		t.Error("a website added today shows the changeover notice on its default range")
	}
	old := e.Site(owner.Key, "old.example")
	e.visitDays(old, "2026-01-01", "2026-01-05", "2026-03-10")
	if body := dashboard("/stats/old.example?from=2026-03-01&to=2026-03-20"); strings.Contains(body, said) {
		t.Error("the changeover notice on a range (and comparison) whose early days hold no counts")
	}
	body := dashboard("/stats/old.example?from=2026-01-05&to=2026-03-20")
	if !strings.Contains(body, "Days before 10 Mar 2026 (in this range and the 75 days before) "+said) {
		t.Error("no changeover notice on a range that holds days counted the old way")
	}
}
