package period

import (
	"testing"
	"time"

	"github.com/analytics-service/analytics/stats"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func rng(from, to string) stats.Range { return stats.Range{From: day(from), To: day(to)} }

func TestMenu(t *testing.T) {
	today := day("2026-03-20")
	menu := Menu(today, day("2025-06-01"))
	want := map[string]stats.Range{
		"d": rng("2026-03-20", "2026-03-20"), "e": rng("2026-03-19", "2026-03-19"), "w": rng("2026-03-14", "2026-03-20"),
		"f": rng("2026-02-21", "2026-03-20"), "t": rng("2026-02-19", "2026-03-20"), "n": rng("2025-12-20", "2026-03-20"),
		"m": rng("2026-03-01", "2026-03-20"), "p": rng("2026-02-01", "2026-02-28"), "y": rng("2026-01-01", "2026-03-20"),
		"s": rng("2025-10-01", "2026-03-20"), "l": rng("2025-04-01", "2026-03-20"), "a": rng("2025-06-01", "2026-03-20"),
	}
	keys := ""
	for _, p := range menu {
		keys += p.Key
		if w, ok := want[p.Key]; ok && p.Range != w {
			t.Errorf("%s: %v, want %v", p.Label, p.Range, w)
		}
	}
	if keys != "derwftnmpyslac" {
		t.Errorf("shortcuts %q", keys)
	}
	if p, ok := Current(menu, rng("2026-02-01", "2026-02-28")); !ok || p.Label != "Last month" {
		t.Errorf("current of February: %v %v", p.Label, ok)
	}
}

func TestShift(t *testing.T) {
	today := day("2026-03-20")
	for _, c := range []struct {
		r    stats.Range
		step int
		want stats.Range
		ok   bool
	}{
		{rng("2026-03-20", "2026-03-20"), -1, rng("2026-03-19", "2026-03-19"), true},
		{rng("2026-03-20", "2026-03-20"), 1, stats.Range{}, false},
		{rng("2026-02-19", "2026-03-20"), -1, rng("2026-01-20", "2026-02-18"), true},
		{rng("2026-03-01", "2026-03-20"), -1, rng("2026-02-01", "2026-02-28"), true},
		{rng("2026-02-01", "2026-02-28"), 1, rng("2026-03-01", "2026-03-20"), true},
		{rng("2026-01-01", "2026-03-20"), -1, rng("2025-10-01", "2025-12-31"), true},
		{rng("2025-01-01", "2025-12-31"), -1, rng("2024-01-01", "2024-12-31"), true},
		{rng("2025-01-01", "2025-12-31"), 1, rng("2026-01-01", "2026-03-20"), true},
		{rng("2026-03-01", "2026-03-01"), -1, rng("2026-02-28", "2026-02-28"), true},
	} {
		got, ok := Shift(c.r, c.step, today)
		if got != c.want || ok != c.ok {
			t.Errorf("%v by %d: %v %v, want %v %v", c.r, c.step, got, ok, c.want, c.ok)
		}
	}
}
