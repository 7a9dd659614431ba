package web

import (
	"reflect"
	"testing"
	"time"

	"github.com/analytics-service/analytics/stats"
)

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// What filtered numbers rest on: the first day with visit details when the range (or the
// range it is compared with) starts earlier, and sampling past 31 days.
func TestFilterNotices(t *testing.T) {
	week := stats.Range{From: day("2026-03-14"), To: day("2026-03-20")}
	const starts = "With filters, numbers start on 16 Mar 2026: earlier days have no visit details."
	for _, c := range []struct {
		days   stats.Range
		before string
		from   time.Time
		want   []string
	}{
		{week, "the 7 days before", time.Time{}, nil},
		{week, "the 7 days before", day("2026-03-16"), []string{starts}},
		{week, "", day("2026-03-16"), []string{starts}},
		{week, "the 7 days before", day("2026-03-10"), []string{"With filters, the numbers of the 7 days before start on 10 Mar 2026: earlier days have no visit details."}},
		{week, "the 7 days before", day("2026-03-21"), []string{"With filters, numbers start on 21 Mar 2026, after this range: none of its days has visit details."}},
		{stats.Range{From: day("2026-03-01"), To: day("2026-03-31")}, "", time.Time{}, nil}, // 31 days: exact
		{stats.Range{From: day("2026-01-01"), To: day("2026-03-20")}, "", time.Time{}, []string{"Estimated from 20 % of visits (ranges over 31 days are sampled)."}},
		{stats.Range{From: day("2020-01-01"), To: day("2026-03-20")}, "", day("2025-02-15"), []string{
			"With filters, numbers start on 15 Feb 2025: earlier days have no visit details.",
			"Estimated from 1 % of visits (ranges over 31 days are sampled).",
		}},
	} {
		if got := FilterNotices(c.days, c.before, c.from); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v, %q, %v:\n got %q\nwant %q", c.days, c.before, c.from, got, c.want)
		}
	}
}
