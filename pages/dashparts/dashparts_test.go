package dashparts

import (
	"net/url"
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

// TestMarkers: a note goes under the bucket of its day (days, weeks, the first hour of a day),
// at the bucket's middle; one before the first bucket has none.
func TestMarkers(t *testing.T) {
	days := []time.Time{day("2026-03-01"), day("2026-03-02"), day("2026-03-03"), day("2026-03-04")}
	// 40 units of labels, then four equal slots of 100
	charts := []Chart{{Class: "wide", Width: 440, X: func(i, n int) float64 { return 40 + (float64(i)+0.5)*400/float64(n) }}}
	notes := []Note{{ID: 1, Date: "2026-03-03", Text: "launch"}, {ID: 2, Date: "2026-02-28", Text: "before"}}
	got := Markers(notes, days, false, charts)
	if len(got) != 1 || len(got[0].Markers) != 1 || got[0].Markers[0].X != "290" || got[0].Markers[0].Title != "2026-03-03: launch" {
		t.Fatalf("days: %+v", got)
	}
	weeks := []time.Time{day("2026-02-23"), day("2026-03-02"), day("2026-03-09")}
	if i := bucketOf("2026-03-08", weeks, false); i != 1 {
		t.Errorf("a Sunday is in its week (1), got %d", i)
	}
	var hours []time.Time
	for h := range 48 {
		hours = append(hours, day("2026-03-01").Add(time.Duration(h)*time.Hour))
	}
	if i := bucketOf("2026-03-02", hours, true); i != 24 {
		t.Errorf("the second day's first hour is 24, got %d", i)
	}
	if i := bucketOf("2026-03-09", hours, true); i != 47 {
		t.Errorf("a day after the range is in the last bucket here (the range holds no such note), got %d", i)
	}
}

// TestSameFilters: a country compares by its code; any other difference counts.
func TestSameFilters(t *testing.T) {
	parse := func(q string) stats.Filters {
		v, err := url.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		f, err := stats.ParseFilters(v)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if !SameFilters(parse("filter[country]=DE:Germany&filter[page]=/a"), parse("filter[country]=DE&filter[page]=/a")) {
		t.Error("DE:Germany and DE differ")
	}
	for _, other := range []string{"filter[country]=FR", "filter[country]=DE", "filter_not[country]=DE&filter[page]=/a", "filter[country]=DE&filter[page]=/b"} {
		if SameFilters(parse("filter[country]=DE:Germany&filter[page]=/a"), parse(other)) {
			t.Errorf("the same as %s", other)
		}
	}
}

// TestNewMap: a country of the list has its title and link, the others none; codes sum.
func TestNewMap(t *testing.T) {
	m := NewMap([]Country{{"DE:Germany", 10}, {"US:United States", 40}},
		func(v string, n int64) string { return v + "=" + time.Duration(n).String() },
		func(v string) string { return "/f?" + v })
	byTitle := map[string]Shape{}
	for _, s := range m.Shapes {
		byTitle[s.Title] = s
	}
	if s := byTitle["DE:Germany=10ns"]; s.URL != "/f?DE:Germany" || s.Level != 3 {
		t.Errorf("Germany: %+v", s)
	}
	if s := byTitle["US:United States=40ns"]; s.Level != 5 {
		t.Errorf("US: %+v", s)
	}
	if s, ok := byTitle["Brazil: no visits"]; !ok || s.URL != "" || s.Level != 0 {
		t.Errorf("Brazil: %+v", s)
	}
}
