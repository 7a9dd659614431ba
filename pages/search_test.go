package pages_test

import (
	"net/http"
	"strings"
	"testing"
)

// The pages' searches are bounded as the API's are: 255 characters, not bytes, of UTF-8 text
// without NUL; a refused search is a readable page that says why, never a 500.
func TestSearchLengthInCharacters(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	e.Site(owner.Key, "search.example")
	b := e.browser().signIn(owner)
	wantStatus(t, "255 two-byte characters", b.get("/?search="+strings.Repeat("%C3%A9", 255)), http.StatusOK)
	wantStatus(t, "255 two-byte characters in a list", b.get("/stats/search.example/page?search="+strings.Repeat("%C3%A9", 255)), http.StatusOK)
	for _, c := range []struct{ query, want string }{
		{strings.Repeat("%C3%A9", 256), "search must be at most 255 characters"},
		{"%FF", "search must be UTF-8 text without NUL characters"},
		{"a%00b", "search must be UTF-8 text without NUL characters"},
	} {
		p := b.get("/?search=" + c.query)
		wantStatus(t, c.query, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.body, c.want) || strings.Contains(p.body, "search.example</a>") {
			t.Errorf("search=%s: the page does not say %q, or lists websites", c.query, c.want)
		}
	}
	if p := b.get("/?search=search"); !strings.Contains(p.body, "search.example") {
		t.Error("a fine search does not find the website")
	}
}
