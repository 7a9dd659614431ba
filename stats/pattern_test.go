package stats

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// oldGoalPattern is the regular expression goals were matched with before Pattern: the
// reference Pattern must agree with.
func oldGoalPattern(pattern string) *regexp.Regexp {
	alts := strings.Split(pattern, "|")
	for i, alt := range alts {
		parts := strings.Split(alt, "*")
		for j, p := range parts {
			parts[j] = regexp.QuoteMeta(p)
		}
		alts[i] = strings.Join(parts, ".*")
	}
	return regexp.MustCompile(`^(?s:` + strings.Join(alts, "|") + `)$`)
}

func TestPatternAsRegexp(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 42))
	// A small alphabet, so that parts repeat and overlap (the cases a greedy match gets
	// wrong), with the characters a regular expression would read specially.
	const alphabet = "/ab.?+()[]\\^$\nä"
	letters := []rune(alphabet)
	word := func(n int, extra string) string {
		var b strings.Builder
		all := append(append([]rune{}, letters...), []rune(extra)...)
		for range n {
			b.WriteRune(all[rng.IntN(len(all))])
		}
		return b.String()
	}
	for i := 0; i < 200_000; i++ {
		pattern := word(rng.IntN(9), "**|")
		text := word(rng.IntN(12), "")
		want := oldGoalPattern(pattern).MatchString(text)
		if got := CompilePattern(pattern).MatchString(text); got != want {
			t.Fatalf("pattern %q, text %q: Pattern says %v, the regular expression %v", pattern, text, got, want)
		}
		// The same as one of several patterns, indexed by their starts.
		other := word(rng.IntN(6), "*")
		if got := CompilePatterns([]string{other, pattern}).MatchString(text); got != (want || oldGoalPattern(other).MatchString(text)) {
			t.Fatalf("patterns %q and %q, text %q: Patterns says %v", other, pattern, text, got)
		}
	}
}

func TestPatterns(t *testing.T) {
	ps := CompilePatterns([]string{"/admin/*", "/preview|/draft/*/edit", "*.pdf", "/*/print"})
	for text, want := range map[string]bool{
		"/admin/": true, "/admin/users": true, "/admin": false,
		"/preview": true, "/preview/x": false, "/draft/1/edit": true, "/draft//edit": true, "/draft/edit": false,
		"/": false, "/a.pdf": true, "x.pdf": true, "/x/print": true, "/print": false,
	} {
		if got := ps.MatchString(text); got != want {
			t.Errorf("%q: got %v, want %v", text, got, want)
		}
	}
	if (Patterns{}).MatchString("/") {
		t.Error("no pattern matched a page")
	}
}

// BenchmarkPatterns is a hit's page against 50 patterns of a website's shields (none matches,
// the common case: every pattern is tried).
func BenchmarkPatterns(b *testing.B) {
	lines := make([]string, 50)
	for i := range lines {
		lines[i] = "/section-" + strings.Repeat("x", i%7) + "/*/private|/tmp" + string(rune('a'+i%26)) + "*"
	}
	ps := CompilePatterns(lines)
	b.ReportAllocs()
	for b.Loop() {
		if ps.MatchString("/blog/2026/03/a-post-about-something") {
			b.Fatal("matched")
		}
	}
}
