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
	menu := Menu(today, day("2025-06-01"), Last24Hours(today.Add(15*time.Hour+20*time.Minute), time.UTC))
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
	if keys != "derhwftnmpyslac" {
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

// The arrows move a period of the menu by its name, whatever its shape.
func TestArrowByName(t *testing.T) {
	today := day("2026-06-20")
	menu := Menu(today, day("2024-06-01"), stats.Range{})
	of := func(key string) stats.Range {
		for _, p := range menu {
			if p.Key == key {
				return p.Range
			}
		}
		t.Fatalf("no period %q", key)
		return stats.Range{}
	}
	for _, c := range []struct {
		key  string
		dir  int
		want stats.Range
		ok   bool
	}{
		{"p", -1, rng("2026-04-01", "2026-04-30"), true}, // last month: the month before
		{"p", 1, rng("2026-06-01", "2026-06-20"), true},  // and after it this month to date
		{"m", -1, rng("2026-05-01", "2026-05-31"), true}, // month to date: the previous month
		{"y", -1, rng("2025-01-01", "2025-12-31"), true}, // year to date: the previous year
		{"y", 1, stats.Range{}, false},                   // next year has no data yet
		{"w", -1, rng("2026-06-07", "2026-06-13"), true}, // last 7 days: the 7 days before
		{"f", -1, rng("2026-04-26", "2026-05-23"), true}, // last 28 days
		{"s", -1, rng("2025-01-01", "2025-12-31"), true}, // in June, last 6 months is the year to date (Current)
		{"l", -1, rng("2024-07-01", "2025-06-30"), true}, // last 12 months
		{"d", -1, rng("2026-06-19", "2026-06-19"), true}, // today: yesterday
		{"e", 1, rng("2026-06-20", "2026-06-20"), true},  // yesterday: today
		{"a", -1, rng("2022-05-01", "2024-05-31"), true}, // all time: by its shape (25 whole months)
	} {
		got, ok := Arrow(menu, of(c.key), c.dir, today)
		if got != c.want || ok != c.ok {
			t.Errorf("%s by %d: %v %v, want %v %v", c.key, c.dir, got, ok, c.want, c.ok)
		}
	}
	// Last 6 months in March: the 6 months before.
	today = day("2026-03-20")
	menu = Menu(today, day("2024-06-01"), stats.Range{})
	if got, _ := Arrow(menu, of("s"), -1, today); got != rng("2025-04-01", "2025-09-30") {
		t.Errorf("last 6 months: %v", got)
	}
	// Last 6 months in March: the 6 months before.
	today = day("2026-03-20")
	menu = Menu(today, day("2024-06-01"), stats.Range{})
	if got, _ := Arrow(menu, of("s"), -1, today); got != rng("2025-04-01", "2025-09-30") {
		t.Errorf("last 6 months: %v", got)
	}
	// A last 7 days that starts on the 1st is still 7 days, not a month to date.
	today = day("2026-06-07")
	menu = Menu(today, day("2024-06-01"), stats.Range{})
	if got, ok := Arrow(menu, of("w"), -1, today); !ok || got != rng("2026-05-25", "2026-05-31") {
		t.Errorf("last 7 days from the 1st: %v %v", got, ok)
	}
	// A range of the menu's shape that is no entry moves by its shape: a custom February.
	if got, _ := Arrow(menu, rng("2026-02-01", "2026-02-28"), -1, today); got != rng("2026-01-01", "2026-01-31") {
		t.Errorf("custom February: %v", got)
	}
	// A last 28 days that is February moves by 28 days.
	today = day("2026-02-28")
	menu = Menu(today, day("2024-06-01"), stats.Range{})
	if got, _ := Arrow(menu, rng("2026-02-01", "2026-02-28"), -1, today); got != rng("2026-01-04", "2026-01-31") {
		t.Errorf("last 28 days in February: %v", got)
	}
}

// The last 24 hours are the query API's: from the hour of 24 hours ago to the current one,
// in the website's zone; they have no period before or after.
func TestLast24Hours(t *testing.T) {
	auckland, err := time.LoadLocation("Pacific/Auckland")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 20, 15, 20, 0, 0, time.UTC) // 21 Mar 04:20 in Auckland (+13)
	for _, c := range []struct {
		loc  *time.Location
		want stats.Range
	}{
		{time.UTC, stats.Range{From: day("2026-03-19"), To: day("2026-03-20"), Hours: stats.Hours{Set: true, From: 15, To: 15}}},
		{auckland, stats.Range{From: day("2026-03-20"), To: day("2026-03-21"), Hours: stats.Hours{Set: true, From: 4, To: 4}}},
	} {
		got := Last24Hours(now, c.loc)
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.loc, got, c.want)
		}
		menu := Menu(day("2026-03-20"), day("2025-01-01"), got)
		if p, ok := Current(menu, got); !ok || p.Key != "h" || p.Label != "Last 24 hours" {
			t.Errorf("%s: the menu's entry %+v %v", c.loc, p, ok)
		}
		if _, ok := Arrow(menu, got, -1, day("2026-03-20")); ok {
			t.Errorf("%s: a period before the last 24 hours", c.loc)
		}
	}
	if s := Last24Hours(now, time.UTC).String(); s != "19 Mar 2026 15:00 – 20 Mar 2026 15:59" {
		t.Errorf("written %q", s)
	}
}
