package worldmap

import (
	"regexp"
	"testing"
)

// TestOutline: every line of the generated outline is a country of its own code, with a path
// of moves and relative lines only, and the countries a map must have are there.
func TestOutline(t *testing.T) {
	path := regexp.MustCompile(`^(M-?\d+ -?\d+(l-?\d+ -?\d+)+z)+$`)
	code := regexp.MustCompile(`^[A-Z]{2}$`)
	seen := map[string]bool{}
	for _, c := range Countries() {
		if !code.MatchString(c.Code) || seen[c.Code] || c.Name == "" || !path.MatchString(c.Path) {
			t.Errorf("%q %q: not a country's outline (%.40s)", c.Code, c.Name, c.Path)
		}
		seen[c.Code] = true
	}
	for _, want := range []string{"DE", "US", "FR", "BR", "CN", "IN", "AU", "ZA", "XK", "CY", "SO"} {
		if !seen[want] {
			t.Errorf("no %s", want)
		}
	}
	if seen["AQ"] || len(seen) < 170 {
		t.Errorf("%d countries, Antarctica %v", len(seen), seen["AQ"])
	}
	if ViewBox() != "0 0 1000 438" {
		t.Errorf("viewBox %q", ViewBox())
	}
}

// TestLevel: no count is level 0, the largest is Levels, and levels never fall as counts grow.
func TestLevel(t *testing.T) {
	if Level(0, 100) != 0 || Level(100, 100) != Levels || Level(1, 100) != 1 || Level(-3, 100) != 0 {
		t.Errorf("levels: %d %d %d", Level(0, 100), Level(100, 100), Level(1, 100))
	}
	// sqrt: a quarter of the largest is half way.
	if got := Level(25, 100); got != 3 {
		t.Errorf("a quarter: %d", got)
	}
	prev := 0
	for n := int64(1); n <= 1000; n++ {
		l := Level(n, 1000)
		if l < prev || l < 1 || l > Levels {
			t.Fatalf("Level(%d, 1000) = %d after %d", n, l, prev)
		}
		prev = l
	}
	// ZZ is drawn nowhere but is the largest: 40/99 is level 4, 10/99 level 2.
	shapes := Draw(map[string]int64{"DE": 40, "FR": 10, "ZZ": 99})
	levels := map[string]int{}
	for _, s := range shapes {
		levels[s.Code] = s.Level
	}
	if levels["DE"] != 4 || levels["FR"] != 2 || levels["US"] != 0 || len(shapes) != len(Countries()) {
		t.Errorf("draw: DE %d FR %d US %d", levels["DE"], levels["FR"], levels["US"])
	}
}
